/**
 * Loaded into a service under test (`node --import`): how long the service's own work held its
 * event loop, asked for over the IPC channel (`'loop-stalls'`; each answer covers the time since
 * the last ask).
 *
 * Two figures. `maxDelayMs` is perf_hooks' event-loop delay, the wall-clock lateness of the
 * loop, which also counts the time the OS gave the CPU to other processes (other test files,
 * PostgreSQL). `longestStallMs` counts only what this thread itself spent: every 5 ms a timer
 * compares how late it ran with the thread's CPU time over the same interval, and a stall is
 * the smaller of the two. A request that computes for 80 ms shows as ~80 ms in both; a busy
 * machine inflates only the first. Tests assert on the second.
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const TICK_MS = 5;
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();

let longestStallMs = 0;
let lastTick = performance.now();
let lastCpu = process.threadCpuUsage();
setInterval(() => {
  const now = performance.now();
  const cpu = process.threadCpuUsage();
  const lateMs = now - lastTick - TICK_MS;
  const usedMs = (cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000;
  longestStallMs = Math.max(longestStallMs, Math.min(lateMs, usedMs));
  lastTick = now;
  lastCpu = cpu;
}, TICK_MS).unref();

let longestGcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) longestGcMs = Math.max(longestGcMs, entry.duration);
}).observe({ entryTypes: ['gc'] });

export interface LoopStalls {
  maxDelayMs: number;
  longestStallMs: number;
  /** The longest garbage-collection pause (part of any stall it fell in). */
  longestGcMs: number;
}

process.on('message', (message) => {
  if (message !== 'loop-stalls') return;
  const answer: LoopStalls = { maxDelayMs: delay.max / 1e6, longestStallMs, longestGcMs };
  delay.reset();
  longestStallMs = 0;
  longestGcMs = 0;
  process.send?.(answer);
});
// The channel must not keep a server alive that was told to stop.
process.channel?.unref();
