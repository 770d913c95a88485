// SPDX-License-Identifier: GPL-2.0
// node fsbench.js setup|read|stat|copy DIR CACHE LIB: Node's own fs
// calls, as an application makes them, timed.  setup makes DIR/tree, 100
// directories of 100 files of 4 KiB; the others time one pass over it,
// 32 calls in flight, and print bench CSV lines tagged CACHE and LIB:
//   read: fs.promises.readFile() of each of the 10000 files;
//   stat: fs.promises.stat() of each file and directory;
//   copy: the first 10 directories (1000 files) copied to DIR/copy with
//         fs.promises.mkdir() and fs.promises.copyFile().
// CPU is that of the whole guest, from /proc/stat, as in the C benchmarks.
'use strict';
const fs = require('fs');
const fsp = fs.promises;
const path = require('path');

const [mode, dir, cache, lib] = process.argv.slice(2);
const DIRS = 100, FILES = 100, SIZE = 4096, INFLIGHT = 32, COPY_DIRS = 10;
const tree = path.join(dir, 'tree');

function paths(ndirs) {
  const files = [], dirs = [];
  for (let d = 0; d < ndirs; d++) {
    dirs.push(path.join(tree, 'd' + d));
    for (let f = 0; f < FILES; f++)
      files.push(path.join(tree, 'd' + d, 'f' + f));
  }
  return { files, dirs };
}

async function inFlight(items, fn) {
  let next = 0;
  const lanes = [];
  for (let i = 0; i < INFLIGHT; i++)
    lanes.push((async () => {
      while (next < items.length)
        await fn(items[next++]);
    })());
  await Promise.all(lanes);
}

function busyTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]
    .trim().split(/\s+/).slice(1).map(Number);
  return f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
}

async function timed(name, items, fn) {
  const t0 = process.hrtime.bigint(), c0 = busyTicks();
  await inFlight(items, fn);
  const ns = Number(process.hrtime.bigint() - t0), ticks = busyTicks() - c0;
  const tag = `CSV,P11,${name};${cache},${lib}`;
  console.log(`${tag},us_per_op,${(ns / 1e3 / items.length).toFixed(2)}`);
  console.log(`${tag},cpu_us_per_op,${(ticks * 1e4 / items.length).toFixed(2)}`);
}

async function main() {
  const { files, dirs } = paths(DIRS);
  const body = Buffer.alloc(SIZE);

  switch (mode) {
  case 'setup':
    for (const d of dirs)
      fs.mkdirSync(d, { recursive: true });
    files.forEach((f, i) => fs.writeFileSync(f, body.fill(48 + i % 10)));
    return;
  case 'read':
    return timed('read', files, async (f) => {
      const b = await fsp.readFile(f);
      if (b.length !== SIZE || b[0] !== b[SIZE - 1])
        throw new Error(`${f}: read ${b.length} bytes`);
    });
  case 'stat':
    return timed('stat', dirs.concat(files), async (p) => {
      const st = await fsp.stat(p);
      if (!st.isDirectory() && st.size !== SIZE)
        throw new Error(`${p}: size ${st.size}`);
    });
  case 'copy': {
    const src = paths(COPY_DIRS).files;
    const copy = path.join(dir, 'copy');
    await fsp.rm(copy, { recursive: true, force: true });
    return timed('copy', src, async (f) => {
      const to = path.join(copy, path.relative(tree, f));
      await fsp.mkdir(path.dirname(to), { recursive: true });
      await fsp.copyFile(f, to);
    });
  }
  default:
    throw new Error(`unknown mode ${mode}`);
  }
}

main().catch((e) => {
  console.error(`fsbench ${mode}: ${e.stack}`);
  process.exit(1);
});
