import FuzzSupport

writeSeedsIfAsked(seeds)
runFuzzer(fuzzSnapshot)
