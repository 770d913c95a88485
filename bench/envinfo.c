// SPDX-License-Identifier: GPL-2.0
/*
 * What the benchmarks ran on: the hypervisor signature of CPUID leaf
 * 0x40000000 ("KVMKVMKVM", "TCGTCGTCGTCG", ...), the hypervisor flag of
 * /proc/cpuinfo, CPUs, kernel release and the async_submit() ABI version.
 */
#include <cpuid.h>
#include <sys/utsname.h>

#include "bench.h"
#include <async_syscall/libasync.h>

int main(void)
{
	unsigned int a, b, c, d;
	char sig[13] = "none", line[4096];
	struct utsname u;
	int flag = 0;
	FILE *f;

	__cpuid(1, a, b, c, d);
	if (c & (1U << 31)) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		sig[12] = 0;
	}
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
			flag = 1;
	if (f)
		fclose(f);
	uname(&u);

	report_str("ENV", "-", "guest", "cpuid_hypervisor", sig);
	report_str("ENV", "-", "guest", "cpuinfo_hypervisor_flag", flag ? "yes" : "no");
	report("ENV", "-", "guest", "cpus", sysconf(_SC_NPROCESSORS_ONLN));
	report_str("ENV", "-", "guest", "kernel", u.release);
	report("ENV", "-", "guest", "async_abi", async_abi_version());
	return 0;
}
