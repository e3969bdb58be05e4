import TandemCore
print("tandem-bench \(TandemCore.version)")
