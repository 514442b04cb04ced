// The npm espeak-ng package (an Emscripten build) ships no types: the part this service uses.
declare module 'espeak-ng' {
  interface ESpeakNgModule {
    FS: {
      readFile(path: string, options?: { encoding?: 'binary' }): Uint8Array;
      writeFile(path: string, data: string | Uint8Array): void;
      unlink(path: string): void;
    };
    /** The program's `main(argc, argv)` (`argv` in the instance's memory). */
    _main(argc: number, argv: number): number;
  }
  export default function ESpeakNg(options: {
    arguments: string[];
    /** Initialise the runtime without running `main`. */
    noInitialRun?: boolean;
    print?: (line: string) => void;
    printErr?: (line: string) => void;
    /** Emscripten's hook: instantiate a module compiled once, rather than compiling it again. */
    instantiateWasm?: (
      imports: WebAssembly.Imports,
      receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
    ) => WebAssembly.Exports;
  }): Promise<ESpeakNgModule>;
}
