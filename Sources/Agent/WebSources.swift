// What a provider's own web search and fetch found in one model turn, in a provider-neutral form.
// Adapters emit it as a continuation item of provider `WebSources.provider` (no adapter family has
// that name, so request assembly never replays it to a model); the Research module reads it back
// from the stored turn to keep durable sources and to list the links an answer used.
import Base

/// One turn's native search results, fetched pages and citations.
public struct WebSources: Sendable, Hashable {
    /// The continuation item's `provider` and `kind`.
    public static let provider = "web"
    public static let kind = "web_sources"

    public struct Link: Sendable, Hashable {
        public var url: String
        public var title: String
        /// A snippet, the cited text, or a fetched page's text (pages only).
        public var text: String
        public init(url: String, title: String = "", text: String = "") {
            self.url = url
            self.title = title
            self.text = text
        }
    }

    public struct Search: Sendable, Hashable {
        /// The query as the provider reported it ("" when it did not say).
        public var query: String
        public var results: [Link]
        public init(query: String, results: [Link]) {
            self.query = query
            self.results = results
        }
    }

    /// Which search served it ("anthropic", "openai", "gemini", "openrouter", "perplexity").
    public var backend: String
    public var searches: [Search]
    /// Pages the provider read whole (Anthropic web_fetch; Gemini URL context gives no text).
    public var pages: [Link]
    /// Where the answer's statements came from, in the order first cited.
    public var citations: [Link]
    /// The provider searched, or was asked to put search results into the prompt (OpenRouter's web
    /// plugin), in this turn, even when no query, URL or citation came back: such a turn still
    /// carries content from outside the person (issue 31).
    public var searched: Bool

    public init(backend: String, searches: [Search] = [], pages: [Link] = [], citations: [Link] = [], searched: Bool = false) {
        self.backend = backend
        self.searches = searches
        self.pages = pages
        self.citations = citations
        self.searched = searched
    }

    public var isEmpty: Bool {
        !searched && searches.allSatisfy { $0.results.isEmpty && $0.query.isEmpty } && pages.isEmpty && citations.isEmpty
    }

    /// Adds a citation unless one with the same URL is already there.
    public mutating func cite(_ link: Link) {
        guard !link.url.isEmpty, !citations.contains(where: { $0.url == link.url }) else { return }
        citations.append(link)
    }

    public var json: JSONValue {
        func links(_ l: [Link]) -> JSONValue {
            .array(l.map { ["url": .string($0.url), "title": .string($0.title), "text": .string($0.text)] })
        }
        var out: [String: JSONValue] = [
            "backend": .string(backend),
            "searches": .array(searches.map { ["query": .string($0.query), "results": links($0.results)] }),
            "pages": links(pages), "citations": links(citations),
        ]
        if searched { out["searched"] = true }
        return .object(out)
    }

    public init?(json: JSONValue) {
        guard let backend = json["backend"]?.stringValue else { return nil }
        func links(_ v: JSONValue?) -> [Link] {
            (v?.arrayValue ?? []).compactMap { l in
                l["url"]?.stringValue.map { Link(url: $0, title: l["title"]?.stringValue ?? "", text: l["text"]?.stringValue ?? "") }
            }
        }
        self.init(backend: backend,
                  searches: (json["searches"]?.arrayValue ?? []).map { Search(query: $0["query"]?.stringValue ?? "", results: links($0["results"])) },
                  pages: links(json["pages"]), citations: links(json["citations"]),
                  searched: json["searched"]?.boolValue ?? false)
    }

    /// The continuation item that carries it.
    public var item: ContinuationItem {
        ContinuationItem(provider: Self.provider, kind: Self.kind, payload: json.serialized)
    }
}
