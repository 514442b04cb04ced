// The npm espeak-ng package (an Emscripten build) ships no types: the part this service uses.
declare module 'espeak-ng' {
  interface ESpeakNgModule {
    FS: { readFile(path: string, options?: { encoding?: 'binary' | 'utf8' }): Uint8Array };
  }
  export default function ESpeakNg(options: {
    arguments: string[];
    print?: (line: string) => void;
    printErr?: (line: string) => void;
  }): Promise<ESpeakNgModule>;
}
