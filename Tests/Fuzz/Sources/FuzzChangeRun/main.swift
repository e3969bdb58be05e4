import FuzzSupport

writeSeedsIfAsked(seeds)
runFuzzer(fuzzChangeRun)
