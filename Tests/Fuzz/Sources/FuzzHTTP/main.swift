import FuzzSupport

runFuzzer(fuzzHTTP)
