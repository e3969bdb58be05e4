import CLinux
import Glibc

/// TCP to 127.0.0.1 only: the generator must never send its traffic anywhere else.
enum Connection {
    /// A connected, non-blocking socket with TCP_NODELAY (a keep-alive request would
    /// otherwise wait for a delayed ACK), or nil with errno set.
    static func open(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        // connect honours the send timeout: a full accept queue cannot hang the run.
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let saved = errno
            close(fd)
            errno = saved
            return nil
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// Sends what the socket takes now; the count sent (0 when it would block), or -1 on error.
    static func send(_ fd: Int32, _ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        while true {
            let sent = Glibc.send(fd, p, n, Int32(MSG_NOSIGNAL))
            if sent >= 0 { return sent }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1
        }
    }
}

/// epoll over the sockets of one loop; each event carries its socket.
final class Poller {
    let fd: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    private let capacity = 128

    init() {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { fail("epoll_create1: errno \(errno)") }
        events = .allocate(capacity: capacity)
    }

    deinit {
        events.deallocate()
        close(fd)
    }

    func add(_ socket: Int32, writable: Bool = false) {
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        ev.data.fd = socket
        epoll_ctl(fd, EPOLL_CTL_ADD, socket, &ev)
    }

    func watch(_ socket: Int32, writable: Bool) {
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        ev.data.fd = socket
        epoll_ctl(fd, EPOLL_CTL_MOD, socket, &ev)
    }

    func remove(_ socket: Int32) {
        var ev = epoll_event()
        epoll_ctl(fd, EPOLL_CTL_DEL, socket, &ev)
    }

    /// Waits at most `timeoutNanos` (rounded up to a millisecond, epoll's unit) and calls
    /// `body(socket, events)` for each ready socket.
    func wait(timeoutNanos: UInt64, _ body: (Int32, UInt32) -> Void) {
        let ms = Int32(min((timeoutNanos + 999_999) / 1_000_000, 1000))
        let n = epoll_wait(fd, events, Int32(capacity), ms)
        guard n > 0 else { return }
        for i in 0..<Int(n) {
            body(events[i].data.fd, events[i].events)
        }
    }
}
