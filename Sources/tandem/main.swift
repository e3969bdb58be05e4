import TandemServer
print("tandem \(TandemServer.version)")
