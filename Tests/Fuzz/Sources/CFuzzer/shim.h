#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, linked in by -sanitize=fuzzer. SwiftPM points `main` at each executable
// target's own entry point (--defsym), so libFuzzer's `main` never runs: the targets' main.swift
// hands their test function to the driver instead.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
