// Packaged foods in a replay (issue 18): products come only from the replay's own cache, seeded
// by the transcript; the network is refused, so a transcript never reaches the internet.
import Foundation
import HTTP
import Agent
import Journal
import REPL
import PackagedFoods
import Synchronization

/// A transport that refuses every request before any socket is opened, so a replayed cache miss
/// shows the product's offline line ("cannot reach Open Food Facts (…)").
public final class NoNetworkTransport: HTTPTransport {
    public static let detail = "a replay has no network"
    let count = Atomic<Int>(0)
    /// How many requests were refused.
    public var refused: Int { count.load(ordering: .relaxed) }
    public init() {}

    public func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        count.add(1, ordering: .relaxed)
        throw HTTPError.connectFailed(Self.detail)
    }
}

/// How `ofj` wires packaged foods into a replayed process. The scanner is always installed (a line
/// of 8–14 digits); the tools and prompt rule replace the plain ones under `@config packaged=on`,
/// so transcripts without it keep the nutrition tools only (and their pinned context figures).
public struct ReplayPackagedHooks: Sendable {
    public var makeTools: @Sendable (JournalStore) -> ToolRegistry
    public var systemPrompt: @Sendable (JournalStore) -> String
    public var makeScanner: @Sendable (JournalStore) -> (@Sendable (String) async -> BarcodeScanOffer)
    public init(makeTools: @escaping @Sendable (JournalStore) -> ToolRegistry, systemPrompt: @escaping @Sendable (JournalStore) -> String,
                makeScanner: @escaping @Sendable (JournalStore) -> (@Sendable (String) async -> BarcodeScanOffer)) {
        self.makeTools = makeTools; self.systemPrompt = systemPrompt; self.makeScanner = makeScanner
    }
}

extension Replayer {
    /// The packaged-foods client of a replayed process: the replay's database and clock, fixed
    /// base URLs (the environment's OPENFOODFACTS_BASE_URL / FDC_BASE_URL are not read) and no
    /// network.
    public nonisolated static func packagedFoods(journal: JournalStore, version: String) -> PackagedFoods {
        let config = PackagedConfig(offBaseURL: "http://replay.invalid", fdcBaseURL: "http://replay.invalid/fdc", fdcAPIKey: "",
                                    version: version, contact: PackagedConfig.defaultContact, maxRetryWait: 0)
        return PackagedFoods(transport: NoNetworkTransport(), config: config,
                             store: PackagedStore(queue: journal.queue, now: { journal.now() }),
                             sleep: { _ in })
    }

    /// `@seed packaged`: an Open Food Facts product response (`{"code": …, "product": {…}}`, as
    /// `GET /api/v2/product/CODE` returns it) or the product object alone; or a search response
    /// (`{"products": […]}`, as `/cgi/search.pl` returns it) with the words it answers in
    /// `"query"`. Mapped as fetched ones would be and put in the replay's cache, fetched at the
    /// replay's clock.
    nonisolated static func seedPackaged(_ json: String, journal: JournalStore) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)), let dict = object as? [String: Any] else {
            throw SetupError(description: "@seed packaged takes a JSON object (an Open Food Facts product or search response)")
        }
        let store = PackagedStore(queue: journal.queue, now: { journal.now() })
        func mapped(_ product: [String: Any], code: Any?) throws -> PackagedProduct {
            let barcode: Barcode
            do { barcode = try Barcode((code as? String) ?? (product["code"] as? String) ?? "") } catch {
                throw SetupError(description: "@seed packaged: \"code\": \(error)")
            }
            return OFFMapping.product(product, code: barcode.code)
        }
        if let items = dict["products"] as? [[String: Any]] {
            guard let query = (dict["query"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty else {
                throw SetupError(description: "@seed packaged: a search response needs \"query\", the words it answers")
            }
            let products = try items.map { try mapped($0, code: nil) }
            try store.storeSearch(products, source: .openFoodFacts, query: query)
            for p in products { try store.store(p, source: .openFoodFacts, id: p.id) }
        } else {
            let product = try mapped((dict["product"] as? [String: Any]) ?? dict, code: dict["code"])
            try store.store(product, source: .openFoodFacts, id: product.id)
        }
    }
}
