#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that have their own `main` (LLVM's libFuzzer documentation, "Using
/// libFuzzer as a library"). Defined only when linked with -sanitize=fuzzer: call it only in a HERALD_FUZZ build.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
