#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh CMD...: boot the built kernel under QEMU and run the shell command
# CMD in it, in the current directory; exit with its status.
#
# ARCH=arm64 boots an arm64 kernel: see guest-init-arm64.
# VM_TIMEOUT (seconds, default 900), VM_ACCEL=kvm|tcg (default: probe),
# VM_MEM (default 2G), VM_CPUS (default 2), VM_LOG (console log; the guest's
# dmesg goes next to it as *-dmesg.log), VM_KERNEL (default: the built
# image), VM_APPEND (more kernel parameters).
. "$(dirname "$0")/lib.sh"

KERNEL=${VM_KERNEL:-$OBJ/$KIMAGE}
[ -f "$KERNEL" ] || fail "boot guest" "" "no kernel at $KERNEL: run make kernel"
TIMEOUT=${VM_TIMEOUT:-900}
RUN=$BUILD/vm.$$
LOG=${VM_LOG:-$LOGS/vm.log}
DMESG=${LOG%.log}-dmesg.log
trap 'rm -rf "$RUN"' EXIT
mkdir -p "$RUN/out"
printf '%s\n' "$*" >"$RUN/out/cmd"
pwd >"$RUN/out/cwd"
truncate -s 2G "$RUN/scratch.img"
/sbin/mkfs.ext4 -q -F "$RUN/scratch.img" || fail "scratch disk" "" "mkfs.ext4 failed"

root=(-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
	-fsdev local,id=out,path="$RUN/out",security_model=none
	-device virtio-9p-pci,fsdev=out,mount_tag=vmout
	-drive file="$RUN/scratch.img",if=none,id=scratch,format=raw,cache=unsafe
	-device virtio-blk-pci,drive=scratch)
append="root=/dev/root rootfstype=9p ro
	rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose
	panic=-1 oops=panic no_timer_check quiet ${VM_APPEND:-}"
if [ "$ARCH" = arm64 ]; then
	boot=(qemu-system-aarch64 -machine virt)
	tcg_cpu=max,pauth-impdef=on
	[ -x "$ARM64_BUSYBOX" ] ||
		fail "boot guest" "" "no $ARM64_BUSYBOX: run make deps ARCH=arm64"
	[ -x "$OBJ/usr/gen_init_cpio" ] ||
		fail "boot guest" "" "no $OBJ/usr/gen_init_cpio: run make kernel ARCH=arm64"
	arm64_initramfs "$RUN/initramfs.cpio" ||
		fail "boot guest" "" "could not make the arm64 initramfs"
	# The host's folders this run needs, at their own paths in the guest.
	dirs=$(printf '%s\n' "$REPO" "$BUILD" "$PWD" | grep -vx / | sort -u | paste -sd:)
	append="console=ttyAMA0 $append hostdirs=$dirs guestinit=$HARNESS/guest-init"
	root+=(-initrd "$RUN/initramfs.cpio")
	VM_ACCEL=tcg
else
	boot=(qemu-system-x86_64 -machine q35)
	tcg_cpu=max
	append="console=ttyS0 init=$HARNESS/guest-init $append"
fi
boot+=(-smp "${VM_CPUS:-2}" -m "${VM_MEM:-2G}"
	-nodefaults -no-reboot -display none -serial stdio -kernel "$KERNEL")
qemu=("${boot[@]}" "${root[@]}")

# /dev/kvm exists on many of our machines but QEMU aborts or hangs on it:
# trust KVM only after a short probe boot reaches the kernel's panic.
# The verdict is kept in $BUILD/kvm-probe; delete it to probe again.
accel=${VM_ACCEL:-$(cat "$BUILD/kvm-probe" 2>/dev/null || true)}
if [ -z "$accel" ]; then
	accel=tcg
	say "probing KVM (up to 20 s)"
	if [ -w /dev/kvm ] &&
	   timeout -k 5 20 "${boot[@]}" -accel kvm -cpu host \
		-append "console=ttyS0 panic=-1 root=/dev/nonexistent" </dev/null 2>&1 |
	   grep -q 'Kernel panic'; then
		accel=kvm
	fi
	echo "$accel" >"$BUILD/kvm-probe"
fi
case $accel in
kvm) qemu+=(-accel kvm -cpu host) ;;
tcg) qemu+=(-accel tcg,thread=multi -cpu "$tcg_cpu") ;;
*) fail "boot guest" "" "VM_ACCEL must be kvm or tcg, not '$accel'" ;;
esac

say "guest: ${accel^^}, ${VM_CPUS:-2} CPUs, timeout ${TIMEOUT}s (console log: ${LOG#"$REPO"/})"
set +e
timeout -k 10 "$TIMEOUT" "${qemu[@]}" -append "$(echo $append)" </dev/null 2>&1 |
	sed -u -e 's/\r$//' -e '/\] reboot: Power down$/d' | tee "$LOG"
rc=${PIPESTATUS[0]}
set -e
cp "$RUN/out/dmesg" "$DMESG" 2>/dev/null || true

[ "$rc" = 124 ] && fail "guest run" "$LOG" "timed out after ${TIMEOUT}s"
[ -f "$RUN/out/status" ] ||
	fail "guest run" "$LOG" "the guest died before the command finished (kernel panic?)"
exit "$(cat "$RUN/out/status")"
