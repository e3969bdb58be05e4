import Glibc

// tandem-load: the load generator of scripts/bench-load.py. The orchestrator starts the
// server and makes the document and the sessions; this program connects the subscribers,
// says `ready`, takes the timetable on stdin, runs it (the sessions on one thread, the
// subscribers on another, both on epoll) and prints the raw figures as one JSON object.

let arguments = Arguments.parse(CommandLine.arguments)
signal(SIGPIPE, SIG_IGN)

let plan = arguments.plan
// One delivery table per document, sized for its subscribers (many documents share the
// revisions a single one would have).
let tables = plan.documents.indices.map { d in
    Deliveries(startRevision: plan.documents[d].startRevision,
               subscribers: plan.subscribers.filter { $0.document == d }.count,
               capacity: max(1024, (1 << 16) / plan.documents.count))
}
let subscribers = Subscribers(tables: tables, gzip: arguments.gzipEvents)
// Every subscriber is listening (or was refused, which the figures report) before the first
// edit, or there is no run.
guard subscribers.connect(plan: plan, deadline: Clock.now() + 30_000_000_000) else {
    fail("only \(subscribers.ready) of \(plan.subscribers.count) subscribers connected in 30 s")
}
StandardStreams.writeLine("ready")

guard let line = StandardStreams.readLine(timeoutNanos: 60_000_000_000) else { fail("no timetable on stdin within 60 s") }
guard let timetable = Timetable.parse(line) else { fail("bad timetable: \(line)\n\(Arguments.usage)") }
subscribers.until = timetable.subscribersUntil
subscribers.editPhase = timetable.phases.first(where: { $0.kind == .edit }) ?? timetable.phases[0]

let sessions = EditSessions(arguments: arguments, timetable: timetable)
let workers = [Worker(sessions), Worker(subscribers)]
for worker in workers { worker.start() }
for worker in workers { worker.join() }

let report = Figures.report(sessions: sessions, subscribers: subscribers, plan: plan)
StandardStreams.writeLine(report.text)
