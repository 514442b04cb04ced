import cliProgress from 'cli-progress';

/** What an operator's command reports while it walks many rows. */
export interface Progress {
  /** `done` of `total` units are finished. */
  update(done: number): void;
  /** The work is over: finish the bar, or print the closing line. */
  stop(): void;
}

interface Options {
  /** Where progress goes: stderr, so that a command's stdout stays its answer. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Without a terminal, a line at least this often (and at every tenth of the work). */
  everyMs?: number;
  now?: () => number;
}

/**
 * A progress bar (cli-progress) on a terminal; on a pipe or in a log file, plain lines at
 * every tenth of the work and at least every `everyMs`, which stay readable in CI output.
 */
export function startProgress(label: string, total: number, options: Options = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => performance.now());
  const startedAt = now();
  const format = (n: number) => n.toLocaleString('en');
  const seconds = () => ((now() - startedAt) / 1000).toFixed(1);

  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${label} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}, {eta_formatted} left`,
        formatValue: (value, _options, type) =>
          type === 'value' || type === 'total' ? format(value) : String(value),
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
    return {
      update: (done) => bar.update(Math.min(done, total)),
      stop: () => bar.stop(),
    };
  }

  const everyMs = options.everyMs ?? 10_000;
  let lastTenth = 0;
  let lastLineAt = startedAt;
  stream.write(`${label}: 0 of ${format(total)}\n`);
  return {
    update(done) {
      const tenth = total > 0 ? Math.floor((Math.min(done, total) / total) * 10) : 10;
      if (tenth > lastTenth || now() - lastLineAt >= everyMs) {
        lastTenth = Math.max(lastTenth, tenth);
        lastLineAt = now();
        const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
        stream.write(`${label}: ${format(done)} of ${format(total)} (${percent} %), ${seconds()} s\n`);
      }
    },
    stop() {
      stream.write(`${label}: done in ${seconds()} s\n`);
    },
  };
}
