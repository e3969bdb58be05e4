import FuzzSupport

runFuzzer(fuzzEditBody)
