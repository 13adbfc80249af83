// Open Food Facts and FoodData Central over the HTTP transport: rate limits, caps, retries, cache.
import Foundation
import HTTP

/// Where to reach the databases and how to introduce ourselves.
public struct PackagedConfig: Sendable {
    public var offBaseURL: String
    public var fdcBaseURL: String
    public var fdcAPIKey: String
    /// `ofj/VERSION (contact)`, as the OFF docs ask every app to send.
    public var userAgent: String
    /// Largest response body read; a bigger one is refused.
    public var bodyLimit: Int
    /// How long to wait for the response head (the deadline policy's first byte).
    public var timeouts: HTTPTimeouts
    /// A Retry-After up to this many seconds is waited out once; a longer one is reported.
    public var maxRetryWait: Double

    public static let defaultOFF = "https://world.openfoodfacts.org"
    public static let defaultFDC = "https://api.nal.usda.gov/fdc"
    public static let defaultContact = "https://github.com/ofj-app/ofj"

    public init(offBaseURL: String = defaultOFF, fdcBaseURL: String = defaultFDC, fdcAPIKey: String = "DEMO_KEY",
                version: String = "0.1", contact: String = defaultContact, bodyLimit: Int = 2 << 20,
                timeouts: HTTPTimeouts = HTTPTimeouts(connect: 10, firstByte: 10, idle: 10), maxRetryWait: Double = 3) {
        self.offBaseURL = offBaseURL.hasSuffix("/") ? String(offBaseURL.dropLast()) : offBaseURL
        self.fdcBaseURL = fdcBaseURL.hasSuffix("/") ? String(fdcBaseURL.dropLast()) : fdcBaseURL
        self.fdcAPIKey = fdcAPIKey
        let cleanContact = contact.filter { $0.isASCII && !$0.isNewline && $0 != "(" && $0 != ")" }
        self.userAgent = "ofj/\(version) (\(cleanContact.isEmpty ? PackagedConfig.defaultContact : cleanContact))"
        self.bodyLimit = bodyLimit; self.timeouts = timeouts; self.maxRetryWait = maxRetryWait
    }

    /// The configuration with `OPENFOODFACTS_BASE_URL`, `FDC_BASE_URL`, `FDC_API_KEY` and
    /// `OFJ_CONTACT` from `environment` when set.
    public static func fromEnvironment(_ environment: [String: String], version: String) -> PackagedConfig {
        func value(_ k: String) -> String? { environment[k].flatMap { $0.isEmpty ? nil : $0 } }
        return PackagedConfig(offBaseURL: value("OPENFOODFACTS_BASE_URL") ?? defaultOFF, fdcBaseURL: value("FDC_BASE_URL") ?? defaultFDC,
                              fdcAPIKey: value("FDC_API_KEY") ?? "DEMO_KEY", version: version,
                              contact: value("OFJ_CONTACT") ?? defaultContact)
    }
}

/// What went wrong, as one line for the user.
public enum PackagedError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidBarcode(Barcode.Problem)
    case offline(service: String, detail: String)
    case slow(service: String)
    case rateLimited(service: String, retryAfter: Double?)
    case localLimit(kind: String, seconds: Double)
    case server(service: String, status: Int)
    case tooLarge(service: String, limit: Int)
    case notJSON(service: String)
    case badRequest(service: String, status: Int)

    public var description: String {
        switch self {
        case .invalidBarcode(let p): return p.description
        case .offline(let s, let d):
            return "cannot reach \(s) (\(d)); check the network connection; products already looked up still work from the cache"
        case .slow(let s): return "\(s) did not answer in time; try again later"
        case .rateLimited(let s, let after?):
            return "\(s) asks ofj to slow down; try again in \(Int(after.rounded(.up))) s"
        case .rateLimited(let s, nil):
            return "\(s) asks ofj to slow down; try again in a minute"
        case .localLimit(let kind, let seconds):
            return "ofj keeps to at most the published rate of \(kind) per minute; try again in \(Int(seconds.rounded(.up))) s"
        case .server(let s, let status): return "\(s) is having trouble (HTTP \(status)); try again later"
        case .tooLarge(let s, let limit): return "\(s) sent a response larger than \(limit / (1 << 20)) MB; refused"
        case .notJSON(let s): return "\(s) sent a response that is not JSON; try again later"
        case .badRequest(let s, let status):
            return status == 401 || status == 403
                ? "\(s) refused the request (HTTP \(status)); check FDC_API_KEY"
                : "\(s) refused the request (HTTP \(status))"
        }
    }
}

/// Where an answer came from.
public enum AnswerOrigin: Sendable, Hashable {
    case network
    case cache(fetchedAt: Date)
    case foodBank
}

/// Looks up and searches packaged foods, from the cache first.
public struct PackagedFoods: Sendable {
    public let transport: HTTPTransport
    public let config: PackagedConfig
    public let store: PackagedStore
    let sleep: @Sendable (Double) async throws -> Void

    /// Published-rate budgets per machine: OFF 15 product reads and 10 searches a minute;
    /// FDC 1,000 an hour (DEMO_KEY allows fewer; its 429 says so).
    static let budgets: [String: (limit: Int, window: Double, kind: String)] = [
        "off-product": (15, 60, "15 product reads"), "off-search": (10, 60, "10 searches"),
        "fdc": (16, 60, "16 FoodData Central requests"),
    ]

    public init(transport: HTTPTransport, config: PackagedConfig, store: PackagedStore,
                sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(nanoseconds: UInt64($0 * 1e9)) }) {
        self.transport = transport; self.config = config; self.store = store; self.sleep = sleep
    }

    public struct Lookup: Sendable {
        /// nil when the database has no such product.
        public var product: PackagedProduct?
        public var origin: AnswerOrigin
    }

    // MARK: - Open Food Facts

    static let offFields = "code,product_name,product_name_en,generic_name,brands,quantity,product_quantity,serving_size,nutrition_data_per,nutriments"

    /// The product with this barcode: from the cache unless `refresh`, else from OFF.
    public func lookup(_ barcode: Barcode, refresh: Bool = false) async throws -> Lookup {
        // A "not found" is trusted for a day only: products are added to Open Food Facts all the time.
        if !refresh, let cached = try store.cachedProduct(source: .openFoodFacts, id: barcode.code),
           cached.product != nil || store.now().timeIntervalSince(cached.fetchedAt) < 86_400 {
            return Lookup(product: cached.product, origin: .cache(fetchedAt: cached.fetchedAt))
        }
        let url = "\(config.offBaseURL)/api/v2/product/\(barcode.code)?fields=\(PackagedFoods.offFields)"
        let (status, json) = try await getJSON(url, service: "Open Food Facts", bucket: "off-product", notFoundIsAnswer: true)
        let product: PackagedProduct?
        if status == 404 || (json["status"] as? NSNumber)?.intValue == 0 {
            product = nil
        } else if let p = json["product"] as? [String: Any] {
            product = OFFMapping.product(p, code: barcode.code)
        } else {
            throw PackagedError.notJSON(service: "Open Food Facts")
        }
        try store.store(product, source: .openFoodFacts, id: barcode.code)
        return Lookup(product: product, origin: .network)
    }

    public struct SearchResult: Sendable {
        public var products: [PackagedProduct]
        public var origin: AnswerOrigin
        /// Set when the network failed and an older cached answer is shown instead.
        public var staleBecause: String?
    }

    /// Full-text search (OFF v1 `/cgi/search.pl`, the documented full-text route; FDC
    /// `foods/search` across Branded, Foundation and SR Legacy). Cached for a day.
    public func search(_ query: String, source: PackagedSource = .openFoodFacts, limit: Int = 10, refresh: Bool = false,
                       now: Date? = nil) async throws -> SearchResult {
        // Freshness by the store's clock, as for products (a replay's clock is not the wall clock).
        let now = now ?? store.now()
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines)
        let cached = try store.cachedSearch(source: source, query: q)
        if !refresh, let cached, now.timeIntervalSince(cached.fetchedAt) < 86_400 {
            return SearchResult(products: Array(cached.products.prefix(limit)), origin: .cache(fetchedAt: cached.fetchedAt))
        }
        let size = max(1, min(limit, 50))
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = q.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        do {
            let products: [PackagedProduct]
            switch source {
            case .openFoodFacts:
                let url = "\(config.offBaseURL)/cgi/search.pl?search_terms=\(encoded)&search_simple=1&json=1&page=1&page_size=\(size)&fields=\(PackagedFoods.offFields)"
                let (_, json) = try await getJSON(url, service: "Open Food Facts", bucket: "off-search", notFoundIsAnswer: false)
                let items = json["products"] as? [[String: Any]] ?? []
                products = items.compactMap { p in
                    guard let code = FDCMapping.text(p["code"]) ?? (p["_id"] as? String) else { return nil }
                    return OFFMapping.product(p, code: code)
                }
            case .foodDataCentral:
                let types = "Branded,Foundation,SR%20Legacy"
                let url = "\(config.fdcBaseURL)/v1/foods/search?query=\(encoded)&dataType=\(types)&pageSize=\(size)&api_key=\(config.fdcAPIKey)"
                let (_, json) = try await getJSON(url, service: "FoodData Central", bucket: "fdc", notFoundIsAnswer: false)
                products = (json["foods"] as? [[String: Any]] ?? []).compactMap(FDCMapping.product)
            }
            try store.storeSearch(products, source: source, query: q)
            // Each hit is cached as a product too, so it can be logged or saved by its id
            // without another request (and offline).
            for p in products { try store.store(p, source: source, id: p.id) }
            return SearchResult(products: Array(products.prefix(limit)), origin: .network)
        } catch let e as PackagedError {
            if case .offline = e, let cached {
                return SearchResult(products: Array(cached.products.prefix(limit)), origin: .cache(fetchedAt: cached.fetchedAt), staleBecause: e.description)
            }
            throw e
        }
    }

    // MARK: - FoodData Central

    /// One FDC food. The default (full) format 404s for some Foundation foods that exist, so
    /// a 404 is retried once with `format=abridged` before it means "not found".
    public func fdcFood(id: Int, refresh: Bool = false) async throws -> Lookup {
        let key = String(id)
        if !refresh, let cached = try store.cachedProduct(source: .foodDataCentral, id: key) {
            return Lookup(product: cached.product, origin: .cache(fetchedAt: cached.fetchedAt))
        }
        var product: PackagedProduct?
        for format in ["full", "abridged"] {
            let url = "\(config.fdcBaseURL)/v1/food/\(key)?format=\(format)&api_key=\(config.fdcAPIKey)"
            let (status, json) = try await getJSON(url, service: "FoodData Central", bucket: "fdc", notFoundIsAnswer: true)
            if status == 404 { continue }
            product = FDCMapping.product(json)
            break
        }
        try store.store(product, source: .foodDataCentral, id: key)
        return Lookup(product: product, origin: .network)
    }

    // MARK: - Transport

    /// GETs `url` and parses a JSON object. Takes a rate-limit slot first; retries a 5xx once
    /// and a 429 once when its Retry-After is short. A 404 is returned (status, body) when
    /// `notFoundIsAnswer`, with an empty object when its body is not JSON.
    func getJSON(_ url: String, service: String, bucket: String, notFoundIsAnswer: Bool) async throws -> (Int, [String: Any]) {
        var attempt = 0
        while true {
            attempt += 1
            if let budget = PackagedFoods.budgets[bucket],
               let wait = try store.takeSlot(bucket: bucket, limit: budget.limit, window: budget.window) {
                throw PackagedError.localLimit(kind: budget.kind, seconds: wait)
            }
            let request = HTTPRequest(method: "GET", url: url,
                                      headers: [HTTPHeader("User-Agent", config.userAgent), HTTPHeader("Accept", "application/json")],
                                      timeouts: config.timeouts)
            let response: HTTPStreamingResponse
            let body: [UInt8]
            do {
                response = try await transport.send(request)
                body = try await collect(response, service: service)
            } catch let e as HTTPError {
                throw map(e, service: service)
            }
            let status = response.head.status
            switch status {
            case 200..<300:
                return (status, try parse(body, service: service))
            case 404 where notFoundIsAnswer:
                return (404, (try? parse(body, service: service)) ?? [:])
            case 429:
                // Retry-After in seconds (an HTTP-date is read as "no hint").
                let after = response.head.header("Retry-After").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                if attempt == 1, let after, after >= 0, after <= config.maxRetryWait {
                    try await sleep(after)
                    continue
                }
                throw PackagedError.rateLimited(service: service, retryAfter: after)
            case 500..<600:
                if attempt == 1 {
                    try await sleep(1)
                    continue
                }
                throw PackagedError.server(service: service, status: status)
            default:
                throw PackagedError.badRequest(service: service, status: status)
            }
        }
    }

    func collect(_ response: HTTPStreamingResponse, service: String) async throws -> [UInt8] {
        if let length = response.head.header("Content-Length").flatMap(Int.init), length > config.bodyLimit {
            throw PackagedError.tooLarge(service: service, limit: config.bodyLimit)
        }
        var out: [UInt8] = []
        for try await chunk in response.body {
            out.append(contentsOf: chunk)
            if out.count > config.bodyLimit { throw PackagedError.tooLarge(service: service, limit: config.bodyLimit) }
        }
        return out
    }

    func parse(_ body: [UInt8], service: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)), let dict = object as? [String: Any] else {
            throw PackagedError.notJSON(service: service)
        }
        return dict
    }

    func map(_ e: HTTPError, service: String) -> PackagedError {
        switch e {
        case .firstByteTimeout, .idleTimeout, .connectTimeout: return .slow(service: service)
        // libcurl's own text names hosts and ports (and a mirror's URL may carry a key): say the kind only.
        case .connectFailed: return .offline(service: service, detail: "could not connect")
        case .connectionReset: return .offline(service: service, detail: "the connection was cut")
        case .tls: return .offline(service: service, detail: "the secure connection failed")
        case .invalidURL: return .offline(service: service, detail: "the base URL is not valid; check OPENFOODFACTS_BASE_URL / FDC_BASE_URL")
        case .cancelled: return .offline(service: service, detail: "cancelled")
        case .other: return .offline(service: service, detail: "the transfer failed")
        }
    }
}
