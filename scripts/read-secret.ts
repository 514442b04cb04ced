import { readFile } from 'node:fs/promises';

/**
 * A secret for an operator's command, never from its command line (which `ps` shows to every
 * user of the machine): from a file (`--password-file`), else typed at a terminal without
 * echo, else read from standard input (`… < file`, or piped). One trailing newline is dropped
 * (files and pipes end lines; the password does not).
 */
export async function readSecret(prompt: string, file: string | undefined): Promise<string> {
  if (file !== undefined) return withoutNewline(await readFile(file, 'utf8'));
  const input = process.stdin;
  if (!input.isTTY) {
    let text = '';
    input.setEncoding('utf8');
    for await (const chunk of input) text += chunk;
    return withoutNewline(text);
  }
  const first = await typeWithoutEcho(prompt);
  const again = await typeWithoutEcho('Again: ');
  if (first !== again) throw new Error('the two passwords differ');
  return first;
}

function withoutNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** A line typed at the terminal, read in raw mode so nothing is echoed; Ctrl-C aborts. */
function typeWithoutEcho(prompt: string): Promise<string> {
  const input = process.stdin;
  // Echo off before the prompt shows: what is typed as soon as it appears is never echoed.
  input.setRawMode(true);
  process.stderr.write(prompt);
  input.setEncoding('utf8');
  input.resume();
  return new Promise<string>((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}
