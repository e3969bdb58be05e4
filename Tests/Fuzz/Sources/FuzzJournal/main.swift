import FuzzSupport

writeSeedsIfAsked(seeds)
runFuzzer(fuzzJournal)
