// The OFF and FDC clients against a loopback server: recorded answers, hostile answers, the cache
// and the per-machine rate limits. Nothing here reaches the internet.
import Foundation
import HTTP
import Nutrition
import PackagedFoods
import SQLiteKit
import Synchronization
import TestSupport
import XCTest

final class Sleeps: Sendable {
    let values = Mutex<[Double]>([])
    var all: [Double] { values.withLock { $0 } }
}

final class ClientTests: XCTestCase {
    var server: LoopbackHTTPServer!
    var dir: TempDirectory!
    let sleeps = Sleeps()

    override func setUp() async throws {
        server = try LoopbackHTTPServer()
        dir = TempDirectory()
    }

    override func tearDown() async throws { server.stop() }

    func makeStore(limit: Int = 20_000, now: @escaping @Sendable () -> Date = { Date() }) throws -> PackagedStore {
        let queue = try DatabaseQueue(path: dir.file("ofj.db"))
        try queue.unrestricted { try PackagedStore.migrate($0) }
        return PackagedStore(queue: queue, productLimit: limit, now: now)
    }

    func makeClient(store: PackagedStore? = nil, firstByte: Double = 10) throws -> PackagedFoods {
        var config = PackagedConfig(offBaseURL: server.url, fdcBaseURL: server.url + "/fdc", fdcAPIKey: "TEST_KEY",
                                    version: "9.9", contact: "me@example.org")
        config.timeouts = HTTPTimeouts(connect: 2, firstByte: firstByte, idle: 2)
        let sleeps = self.sleeps
        return PackagedFoods(transport: CurlTransport(), config: config, store: try store ?? makeStore(),
                             sleep: { s in sleeps.values.withLock { $0.append(s) } })
    }

    func recorded(_ name: String, status: Int = 200) throws -> LoopbackHTTPServer.Response {
        .init(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(try fixture(name)))
    }

    func expectError(_ expected: PackagedError, _ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            try await body()
            XCTFail("expected \(expected)", file: file, line: line)
        } catch let e as PackagedError {
            XCTAssertEqual(e, expected, file: file, line: line)
            XCTAssertFalse(e.description.contains("\n"), file: file, line: line)
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
    }

    // MARK: - Product by barcode

    func testProductByBarcodeThenFromCacheThenRefresh() async throws {
        server.enqueue(try recorded("off-product-3029330003533.json"))
        let client = try makeClient()
        let code = try Barcode("3029330003533")
        let first = try await client.lookup(code)
        XCTAssertEqual(first.origin, .network)
        XCTAssertEqual(first.product?.name, "Crousti Moelleux Complet Sans Sucre Ajouté 730gr")
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.method, "GET")
        XCTAssertTrue(request.path.hasPrefix("/api/v2/product/3029330003533?fields="), request.path)
        XCTAssertTrue(request.path.contains("nutriments"))
        XCTAssertEqual(request.header("User-Agent"), "ofj/9.9 (me@example.org)")

        let second = try await client.lookup(code)
        guard case .cache = second.origin else { return XCTFail("expected the cache, got \(second.origin)") }
        XCTAssertEqual(second.product, first.product)
        XCTAssertEqual(server.requests.count, 1, "a cached product needs no request")

        server.enqueue(try recorded("off-product-3029330003533.json"))
        let refreshed = try await client.lookup(code, refresh: true)
        XCTAssertEqual(refreshed.origin, .network)
        XCTAssertEqual(server.requests.count, 2)
    }

    func testCachedProductAnswersWithTheServerGone() async throws {
        server.enqueue(try recorded("off-product-7622210288257.json"))
        let store = try makeStore()
        _ = try await makeClient(store: store).lookup(try Barcode("7622210288257"))
        server.stop()
        let again = try await makeClient(store: store).lookup(try Barcode("7622210288257"))
        XCTAssertEqual(again.product?.brand, "Poulain")
    }

    func testNotFoundIsAnAnswerAndIsCached() async throws {
        server.enqueue(.json(#"{"code":"3017620422003","status":0,"status_verbose":"product not found"}"#, status: 404))
        let client = try makeClient()
        let result = try await client.lookup(try Barcode("3017620422003"))
        XCTAssertNil(result.product)
        let again = try await client.lookup(try Barcode("3017620422003"))
        XCTAssertNil(again.product)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testNotFoundIsAskedAgainAfterADay() async throws {
        let t = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let client = try makeClient(store: try makeStore(now: { t.withLock { $0 } }))
        server.enqueue(.json(#"{"status":0}"#, status: 404))
        let first = try await client.lookup(try Barcode("3029330003533"))
        XCTAssertNil(first.product)
        t.withLock { $0 = $0.addingTimeInterval(86_401) }
        server.enqueue(try recorded("off-product-3029330003533.json"))
        let later = try await client.lookup(try Barcode("3029330003533"))
        XCTAssertEqual(later.origin, .network)
        XCTAssertNotNil(later.product)
    }

    func testBodyThatIsNotJSON() async throws {
        server.enqueue(.text("<html>Service Unavailable</html>", contentType: "text/html"))
        let client = try makeClient()
        await expectError(.notJSON(service: "Open Food Facts")) { _ = try await client.lookup(try Barcode("3017620422003")) }
        XCTAssertEqual(client.store.productCount, 0, "nothing half-written")
    }

    func testTwentyMegabyteBodyIsRefused() async throws {
        let big = [UInt8](repeating: 0x20, count: 20 << 20)
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/json")], body: big, framing: .chunked, chunking: .fixed(1 << 20)))
        let client = try makeClient()
        await expectError(.tooLarge(service: "Open Food Facts", limit: 2 << 20)) { _ = try await client.lookup(try Barcode("3017620422003")) }
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/json")], body: big))
        await expectError(.tooLarge(service: "Open Food Facts", limit: 2 << 20)) { _ = try await client.lookup(try Barcode("3017620422003")) }
    }

    func testSlowServerMeetsTheFirstByteDeadline() async throws {
        server.enqueue(.init(status: 200, body: Array("{}".utf8), delayBeforeHead: 3))
        let client = try makeClient(firstByte: 0.3)
        let start = Date()
        await expectError(.slow(service: "Open Food Facts")) { _ = try await client.lookup(try Barcode("3017620422003")) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5)
    }

    func testShortRetryAfterIsWaitedOutOnce() async throws {
        server.enqueue(.rateLimited(retryAfter: "2"))
        server.enqueue(try recorded("off-product-3029330003533.json"))
        let result = try await makeClient().lookup(try Barcode("3029330003533"))
        XCTAssertNotNil(result.product)
        XCTAssertEqual(sleeps.all, [2])
    }

    func testLongRetryAfterAndNoRetryAfter() async throws {
        server.enqueue(.rateLimited(retryAfter: "120"))
        let client = try makeClient()
        await expectError(.rateLimited(service: "Open Food Facts", retryAfter: 120)) { _ = try await client.lookup(try Barcode("3017620422003")) }
        server.enqueue(.json("{}", status: 429))
        await expectError(.rateLimited(service: "Open Food Facts", retryAfter: nil)) { _ = try await client.lookup(try Barcode("3017620422003")) }
        XCTAssertEqual(sleeps.all, [])
        XCTAssertTrue(PackagedError.rateLimited(service: "Open Food Facts", retryAfter: 120).description.contains("120 s"))
    }

    func testServerErrorIsRetriedOnceThenReported() async throws {
        server.enqueue(.json("{}", status: 502))
        server.enqueue(try recorded("off-product-3029330003533.json"))
        let retried = try await makeClient().lookup(try Barcode("3029330003533"))
        XCTAssertNotNil(retried.product)
        server.enqueue(.json("{}", status: 503))
        server.enqueue(.json("{}", status: 503))
        let client = try makeClient()
        await expectError(.server(service: "Open Food Facts", status: 503)) { _ = try await client.lookup(try Barcode("3017620422003")) }
    }

    func testOfflineSaysSoInOneLine() async throws {
        // A port that refuses (a stopped server's port may go to another test's server).
        let refusing = try RefusingLoopbackPort()
        defer { withExtendedLifetime(refusing) {} }
        var config = PackagedConfig(offBaseURL: refusing.url(""))
        config.timeouts = HTTPTimeouts(connect: 2, firstByte: 2, idle: 2)
        let client = PackagedFoods(transport: CurlTransport(), config: config, store: try makeStore())
        do {
            _ = try await client.lookup(try Barcode("3017620422003"))
            XCTFail("expected offline")
        } catch let e as PackagedError {
            guard case .offline = e else { return XCTFail("got \(e)") }
            XCTAssertTrue(e.description.hasPrefix("cannot reach Open Food Facts"), e.description)
        }
    }

    // MARK: - Rate limits

    func testProductReadsAreLimitedAcrossConnections() async throws {
        let t = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let clock: @Sendable () -> Date = { t.withLock { $0 } }
        let a = try makeStore(now: clock), b = try makeStore(now: clock)
        for i in 0..<15 {
            XCTAssertNil(try (i % 2 == 0 ? a : b).takeSlot(bucket: "off-product", limit: 15, window: 60))
        }
        let wait = try XCTUnwrap(try a.takeSlot(bucket: "off-product", limit: 15, window: 60))
        XCTAssertEqual(wait, 60, accuracy: 0.01)
        XCTAssertNil(try a.takeSlot(bucket: "off-search", limit: 10, window: 60), "buckets are separate")
        t.withLock { $0 = $0.addingTimeInterval(61) }
        XCTAssertNil(try b.takeSlot(bucket: "off-product", limit: 15, window: 60))
    }

    func testTheSixteenthReadInAMinuteIsRefusedBeforeAnyRequest() async throws {
        let client = try makeClient()
        for _ in 0..<15 { _ = try client.store.takeSlot(bucket: "off-product", limit: 15, window: 60) }
        do {
            _ = try await client.lookup(try Barcode("3017620422003"))
            XCTFail("expected the local limit")
        } catch let e as PackagedError {
            guard case .localLimit = e else { return XCTFail("got \(e)") }
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    // MARK: - Cache bound

    func testCacheKeepsTheMostRecentlyUsed() throws {
        let t = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let store = try makeStore(limit: 3, now: { t.withLock { $0 = $0.addingTimeInterval(3_601); return $0 } })
        func p(_ id: String) -> PackagedProduct {
            PackagedProduct(source: .openFoodFacts, id: id, barcode: id, name: id, brand: nil, per100: NutrientAmounts(),
                            perServing: NutrientAmounts(), serving: nil, servingText: nil, packageQuantity: nil)
        }
        for id in ["a", "b", "c"] { try store.store(p(id), source: .openFoodFacts, id: id) }
        XCTAssertNotNil(try store.cachedProduct(source: .openFoodFacts, id: "a"))  // a is used again
        try store.store(p("d"), source: .openFoodFacts, id: "d")
        XCTAssertEqual(store.productCount, 3)
        XCTAssertNil(try store.cachedProduct(source: .openFoodFacts, id: "b"), "b was least recently used")
        XCTAssertNotNil(try store.cachedProduct(source: .openFoodFacts, id: "a"))
    }

    // MARK: - Search

    func testOFFSearchUsesTheFullTextRouteAndIsCached() async throws {
        server.enqueue(try recorded("off-search-coca.json"))
        let client = try makeClient()
        let result = try await client.search("coca cola", limit: 5)
        XCTAssertEqual(result.products.count, 5)
        XCTAssertEqual(result.products.first?.barcode, "5000112638745")
        let path = try XCTUnwrap(server.requests.first?.path)
        XCTAssertTrue(path.hasPrefix("/cgi/search.pl?search_terms=coca%20cola&"), path)
        XCTAssertTrue(path.contains("json=1"))
        let again = try await client.search("Coca  Cola", limit: 5)
        guard case .cache = again.origin else { return XCTFail("expected the cache") }
        XCTAssertEqual(server.requests.count, 1)
    }

    /// A cached search is fresh for a day by the store's clock (a replay's), not the wall clock.
    func testSearchFreshnessFollowsTheStoreClock() async throws {
        let t = Mutex(Date(timeIntervalSince1970: 1_700_000_000))  // years before the wall clock
        let client = try makeClient(store: try makeStore(now: { t.withLock { $0 } }))
        server.enqueue(try recorded("off-search-coca.json"))
        _ = try await client.search("coca cola", limit: 5)
        t.withLock { $0 = $0.addingTimeInterval(3_600) }
        let hour = try await client.search("coca cola", limit: 5)
        guard case .cache = hour.origin else { return XCTFail("an hour later by the store's clock: expected the cache") }
        XCTAssertEqual(server.requests.count, 1)
        t.withLock { $0 = $0.addingTimeInterval(86_400) }
        server.enqueue(try recorded("off-search-coca.json"))
        let day = try await client.search("coca cola", limit: 5)
        XCTAssertEqual(day.origin, .network)
        XCTAssertEqual(server.requests.count, 2)
    }

    func testFDCSearchAndTheAbridgedFallback() async throws {
        server.enqueue(try recorded("fdc-search-cheddar.json"))
        let client = try makeClient()
        let result = try await client.search("cheddar cheese", source: .foodDataCentral)
        XCTAssertEqual(result.products.first?.name, "CHEDDAR CHEESE")
        XCTAssertEqual(result.products.first?.dataType, "Branded")
        let path = try XCTUnwrap(server.requests.first?.path)
        XCTAssertTrue(path.hasPrefix("/fdc/v1/foods/search?query=cheddar%20cheese&dataType=Branded,Foundation,SR%20Legacy"), path)
        XCTAssertTrue(path.contains("api_key=TEST_KEY"))

        server.enqueue(.init(status: 404, body: []))
        server.enqueue(try recorded("fdc-food-328637-abridged.json"))
        let food = try await client.fdcFood(id: 328637)
        XCTAssertEqual(food.product?.per100["energy_kcal"], 408)
        XCTAssertEqual(server.requests.map(\.path).suffix(2).map { $0.contains("format=abridged") }, [false, true])
    }

    func testStringNutrimentsOverTheWire() async throws {
        server.enqueue(.json(#"{"code":"3017620422003","status":1,"product":{"product_name":"Biscuits","serving_size":"2 biscuits (25 g)","nutriments":{"energy-kcal_100g":"480","fat_100g":"1,5","sugars_100g":"<0.5","salt_100g":"0,75","proteins_100g":"n/a"}}}"#))
        let found = try await makeClient().lookup(try Barcode("3017620422003"))
        let p = try XCTUnwrap(found.product)
        XCTAssertEqual(p.per100["energy_kcal"], 480)
        XCTAssertEqual(p.per100["fat_g"], 1.5)
        XCTAssertEqual(p.per100["sugars_g"], 0.5)
        XCTAssertEqual(p.per100["sodium_mg"], 300)
        XCTAssertNil(p.per100["protein_g"])
        XCTAssertEqual(p.derived, ["sodium_mg"])
        XCTAssertEqual(p.atMost, ["sugars_g"])
        XCTAssertEqual(p.perServing["energy_kcal"], 120)
    }

    func testTheFDCKeyNeverReachesAnErrorLine() async throws {
        server.enqueue(.json(#"{"error":{"code":"API_KEY_INVALID"}}"#, status: 403))
        let client = try makeClient()
        do {
            _ = try await client.search("cheddar", source: .foodDataCentral)
            XCTFail("expected a refusal")
        } catch let e as PackagedError {
            XCTAssertEqual(e, .badRequest(service: "FoodData Central", status: 403))
            XCTAssertTrue(e.description.contains("check FDC_API_KEY"))
            XCTAssertFalse(e.description.contains("TEST_KEY"))
        }
    }

    func testConfigFromEnvironment() {
        let c = PackagedConfig.fromEnvironment(["OPENFOODFACTS_BASE_URL": "http://127.0.0.1:9/", "FDC_BASE_URL": "http://x/fdc",
                                                "FDC_API_KEY": "K"], version: "1.2")
        XCTAssertEqual(c.offBaseURL, "http://127.0.0.1:9")
        XCTAssertEqual(c.fdcBaseURL, "http://x/fdc")
        XCTAssertEqual(c.fdcAPIKey, "K")
        XCTAssertTrue(c.userAgent.hasPrefix("ofj/1.2 ("))
        XCTAssertEqual(PackagedConfig.fromEnvironment([:], version: "1").fdcAPIKey, "DEMO_KEY")
    }
}
