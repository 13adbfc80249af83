// The diagnostics database as Hrana errors name it: its settings and what happens next.
import Hrana

extension HranaService {
    public static let diagnostics = HranaService(name: "diagnostics database", urlVariable: "TURSO_DATABASE_URL",
                                                 tokenVariable: "TURSO_AUTH_TOKEN", retryPhrase: "delivery will retry later")
}
