// One call that wires outbox, recorder, flusher and commands for the app (the integrator's entry point).
import HTTP
import Hrana
import SQLiteKit

/// Everything the app needs for diagnostics, built from the main database and the values of
/// TURSO_DATABASE_URL / TURSO_AUTH_TOKEN (read by the caller, never by this library).
///
/// ```
/// let diagnostics = DiagnosticsSetup.make(queue: db, databaseURL: env["TURSO_DATABASE_URL"],
///                                         authToken: env["TURSO_AUTH_TOKEN"], transport: CurlTransport(),
///                                         appVersion: version)
/// await diagnostics.start()                       // background delivery (no-op when not configured)
/// runner.diagnostics = diagnostics.recorder       // the Agent's DiagnosticsRecorder
/// await diagnostics.commands.run(["status"])      // `ofj diag status` and `/diag`
/// await diagnostics.shutdown()                    // at exit: at most 2 s
/// ```
/// The outbox migrations must be registered with the main migrator
/// (`DiagnosticsOutbox.registerMigrations(into:)`) and applied before the first record.
public struct DiagnosticsSetup: Sendable {
    public let outbox: DiagnosticsOutbox
    public let recorder: OutboxRecorder
    /// nil when TURSO_DATABASE_URL is unset or unusable: events then stay in the outbox.
    public let flusher: DiagnosticsFlusher?
    public let commands: DiagnosticsCommands
    /// One line for `ofj doctor` when TURSO_DATABASE_URL is set but cannot be used.
    public let configurationProblem: String?

    public static func make(queue: DatabaseQueue, databaseURL: String?, authToken: String?, transport: HTTPTransport,
                            appVersion: String, allowedToolNames: Set<String>? = nil,
                            policy: DiagnosticsFlusher.Policy = .init()) -> DiagnosticsSetup {
        let outbox = DiagnosticsOutbox(queue: queue)
        var flusher: DiagnosticsFlusher?
        var problem: String?
        do {
            if let configuration = try TursoConfiguration.from(databaseURL: databaseURL, authToken: authToken) {
                let client = HranaClient(configuration: configuration, transport: transport)
                flusher = DiagnosticsFlusher(outbox: outbox, sink: TursoSink(client: client), appVersion: appVersion, policy: policy)
            }
        } catch {
            problem = (error as? HranaError)?.describe(.diagnostics) ?? "TURSO_DATABASE_URL cannot be used; fix it or unset it"
        }
        var onRecord: (@Sendable () -> Void)?
        if let flusher {
            onRecord = { flusher.nudge() }
        }
        let recorder = OutboxRecorder(outbox: outbox, appVersion: appVersion, allowedToolNames: allowedToolNames, onRecord: onRecord)
        return DiagnosticsSetup(outbox: outbox, recorder: recorder, flusher: flusher,
                                commands: DiagnosticsCommands(outbox: outbox, flusher: flusher, configurationProblem: problem),
                                configurationProblem: problem)
    }

    /// Starts background delivery when configured.
    public func start() async {
        await flusher?.start()
    }

    /// Flushes for at most `timeout` seconds and stops; undelivered events stay for next time.
    public func shutdown(timeout: Double = 2) async {
        _ = await flusher?.shutdown(timeout: timeout)
    }
}
