// `ofj barcode`, `ofj packaged`, `ofj log --barcode`, `ofj foods add --barcode` as whole processes
// against a loopback Open Food Facts.
import Foundation
import PackagedFoods
import TestSupport
import XCTest

final class PackagedCLITests: XCTestCase {
    var server: LoopbackHTTPServer!
    var home: TempDirectory!

    override func setUp() async throws {
        server = try LoopbackHTTPServer()
        home = TempDirectory()
    }

    override func tearDown() async throws { server.stop() }

    var env: [String: String] {
        ["OFJ_HOME": home.path, "HOME": home.path, "OPENFOODFACTS_BASE_URL": server.url, "FDC_BASE_URL": server.url + "/fdc",
         "NO_COLOR": "1", "TZ": "UTC"]
    }

    func ofj(_ args: String...) async throws -> OfjBinary.Result { try await OfjBinary.run(args, environment: env) }

    func bread() throws -> LoopbackHTTPServer.Response {
        .init(status: 200, headers: [("Content-Type", "application/json")], body: Array(try fixture("off-product-3029330003533.json")))
    }

    func testBarcodeCardThenCacheThenJSON() async throws {
        server.enqueue(try bread())
        let first = try await ofj("barcode", "3029330003533")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.hasPrefix("Crousti Moelleux Complet Sans Sucre Ajouté 730gr · Jacquet\n"), first.stdout)
        XCTAssertTrue(first.stdout.contains("barcode 3029330003533 · Open Food Facts\n"))
        XCTAssertTrue(first.stdout.contains("serving 1 tranche (60.8 g) · package 730 g"))
        XCTAssertTrue(first.stdout.contains("Calories"))
        XCTAssertEqual(first.stdout.components(separatedBy: "data © Open Food Facts contributors, ODbL").count, 2, "attribution once")
        server.stop()
        let cached = try await ofj("barcode", "3029330003533")
        XCTAssertEqual(cached.status, 0, cached.stderr)
        XCTAssertTrue(cached.stdout.contains("Open Food Facts, from cache, fetched "), cached.stdout)
        let json = try await ofj("barcode", "3029330003533", "--json")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["origin"] as? String, "cache")
        XCTAssertEqual(object["attribution"] as? String, "data © Open Food Facts contributors, ODbL")
        let product = try XCTUnwrap(object["product"] as? [String: Any])
        XCTAssertEqual((product["per_100"] as? [String: Any])?["energy_kcal"] as? Double, 246)
        XCTAssertEqual((product["per_serving"] as? [String: Any])?["energy_kcal"] as? Double, 150)
    }

    func testInvalidBarcodeIsRefusedBeforeAnyRequest() async throws {
        let r = try await ofj("barcode", "3017620422004")
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr, "ofj: the check digit is wrong for an EAN-13 (the last digit should be 3); retype or rescan the code\n")
        XCTAssertEqual(server.requests.count, 0)
    }

    func testNotFoundAndOfflineAreOneLine() async throws {
        server.enqueue(.json(#"{"code":"3017620422003","status":0,"status_verbose":"product not found"}"#, status: 404))
        let missing = try await ofj("barcode", "3017620422003")
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.hasPrefix("ofj: no product with barcode 3017620422003 in Open Food Facts"), missing.stderr)
        // Offline: a port that refuses (a stopped server's port may go to another test's server).
        let refusing = try RefusingLoopbackPort()
        var offlineEnv = env
        offlineEnv["OPENFOODFACTS_BASE_URL"] = refusing.url("")
        let offline = try await OfjBinary.run(["barcode", "7622210288257"], environment: offlineEnv)
        withExtendedLifetime(refusing) {}
        XCTAssertEqual(offline.status, 1)
        XCTAssertTrue(offline.stderr.hasPrefix("ofj: cannot reach Open Food Facts (could not connect)"), offline.stderr)
        XCTAssertFalse(offline.stderr.contains("127.0.0.1"), "libcurl's text names the host: \(offline.stderr)")
        XCTAssertEqual(offline.stderr.filter { $0 == "\n" }.count, 1)
    }

    func testLogByBarcodeWithEachAmountKind() async throws {
        server.enqueue(try bread())
        let one = try await ofj("log", "--barcode", "3029330003533", "--meal", "breakfast")
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stdout.contains("1 tranche (60.8 g) — 150 kcal"), one.stdout)
        let two = try await ofj("log", "--barcode", "3029330003533", "--amount", "2 tranches", "--meal", "lunch")
        XCTAssertTrue(two.stdout.contains("300 kcal"), two.stdout + two.stderr)
        let grams = try await ofj("log", "--barcode", "3029330003533", "--grams", "50", "--meal", "lunch")
        XCTAssertTrue(grams.stdout.contains("123 kcal"), grams.stdout + grams.stderr)
        let bad = try await ofj("log", "--barcode", "3029330003533", "--amount", "1 bar")
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("has no \"bar\""), bad.stderr)
        let day = try await ofj("day", "--json")
        XCTAssertTrue(day.stdout.contains("\"packaged\""), day.stdout)
        XCTAssertEqual(server.requests.count, 1, "later logs are answered from the cache")
    }

    func testNoNutritionDataIsNeverLoggedAsZero() async throws {
        server.enqueue(.json(#"{"code":"3017620422003","status":1,"product":{"product_name":"Mystery","nutriments":{"energy-kcal_100g":0}}}"#))
        let r = try await ofj("log", "--barcode", "3017620422003")
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("no nutrition data"), r.stderr)
        let day = try await ofj("day", "--json")
        XCTAssertFalse(day.stdout.contains("Mystery"))
    }

    func testFoodsAddBarcodeThenTheSecondScanIsFromTheFoodBank() async throws {
        server.enqueue(try bread())
        let add = try await ofj("foods", "add", "--barcode", "3029330003533")
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stdout.hasPrefix("Saved to the Food Bank: Crousti"), add.stdout)
        let again = try await ofj("foods", "add", "--barcode", "3029330003533")
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("already in the Food Bank"))
        let scan = try await ofj("barcode", "3029330003533")
        XCTAssertTrue(scan.stdout.contains("your Food Bank"), scan.stdout)
        XCTAssertFalse(scan.stdout.contains("ODbL"))
        let log = try await ofj("log", "--barcode", "3029330003533")
        XCTAssertTrue(log.stdout.contains("150 kcal"), log.stdout + log.stderr)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testPackagedSearch() async throws {
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/json")], body: Array(try fixture("off-search-coca.json"))))
        let r = try await ofj("packaged", "coca", "--limit", "3")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 4, r.stdout)
        XCTAssertEqual(lines[0], "5000112638745  Coca cola zero sugar · Coca-Cola — 0.3 kcal/100 mL")
        XCTAssertEqual(lines[3], "data © Open Food Facts contributors, ODbL")
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/json")], body: Array(try fixture("fdc-search-cheddar.json"))))
        let fdc = try await ofj("packaged", "cheddar", "--source", "fdc", "--limit", "1")
        XCTAssertEqual(fdc.stdout, "fdc:2057648  CHEDDAR CHEESE · GRAFTON VILLAGE [Branded] — 393 kcal/100 g\n", fdc.stdout + fdc.stderr)
    }

    func testAScannedLineAtTheREPLShowsACardAndLogsOnYes() async throws {
        server.enqueue(try bread())
        var e = env
        e["OFJ_PROVIDER"] = "offline"
        let r = try await OfjBinary.run([], input: "3029330003533\ny\n3029330003533\nn\n3017620422004\n", environment: e)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("┌ Scanned: 3029330003533\n│ Crousti Moelleux Complet Sans Sucre Ajouté 730gr · Jacquet\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("│ data © Open Food Facts contributors, ODbL"), r.stdout)
        XCTAssertTrue(r.stdout.contains("✓ logged Crousti Moelleux Complet Sans Sucre Ajouté 730gr (Jacquet) — 1 tranche (60.8 g) — 150 kcal"), r.stdout)
        XCTAssertTrue(r.stdout.contains("from cache, fetched"), "the second scan is answered from the cache")
        XCTAssertTrue(r.stdout.contains("not logged"))
        XCTAssertTrue(r.stdout.contains("✗ the check digit is wrong for an EAN-13"), r.stdout)
        XCTAssertEqual(server.requests.count, 1)
        let day = try await ofj("day", "--json")
        XCTAssertEqual(day.stdout.components(separatedBy: "\"packaged\"").count, 2, "exactly one entry logged")
    }

    /// Issue 39: the packaged-food clients are made on first use, so a plain turn first leaves the
    /// REPL's scanner and the assistant's lookup_barcode working (one request; the second is cached).
    func testAScanAfterAPlainTurnStillLooksUpAndLogs() async throws {
        server.enqueue(try bread())
        var e = env
        e["OFJ_PROVIDER"] = "offline"
        let r = try await OfjBinary.run([], input: "hello\n3029330003533\ny\nscan 3029330003533\n", environment: e)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("┌ Scanned: 3029330003533\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("✓ logged Crousti Moelleux Complet Sans Sucre Ajouté 730gr (Jacquet)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Say \"log 1 serving of 3029330003533\" to log it."), r.stdout)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testTheOfflineAssistantScansAndLogsOneServing() async throws {
        server.enqueue(try bread())
        var e = env
        e["OFJ_PROVIDER"] = "offline"
        let r = try await OfjBinary.run([], input: "scan 3029330003533\nlog 1 serving of 3029330003533 for lunch\ny\n", environment: e)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Crousti Moelleux Complet Sans Sucre Ajouté 730gr · Jacquet — serving 1 tranche (60.8 g), 150 kcal per serving. Say \"log 1 serving of 3029330003533\" to log it. (data © Open Food Facts contributors, ODbL)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("┌ Approve: log_packaged_food"), r.stdout)
        XCTAssertTrue(r.stdout.contains("│ Source: Open Food Facts, from cache, fetched"), r.stdout)
        XCTAssertTrue(r.stdout.contains("to lunch on"), r.stdout)
        XCTAssertEqual(server.requests.count, 1)
        let day = try await ofj("day", "--json")
        XCTAssertTrue(day.stdout.contains("\"packaged\""), day.stdout)
    }

    func testTheRateLimitHoldsAcrossFourProcessesStartedTogether() async throws {
        for _ in 0..<20 { server.enqueue(try bread()) }
        // 20 distinct valid EAN-13 codes, 5 per process, 4 processes at once.
        let codes = (0..<20).map { i -> String in
            let body = String(format: "30000000000%02d", i)
            return body + String(Barcode.checkDigit(body.map { Int(String($0)) ?? 0 }))
        }
        let environment = env
        let results = try await withThrowingTaskGroup(of: [OfjBinary.Result].self) { group in
            for p in 0..<4 {
                group.addTask {
                    var out: [OfjBinary.Result] = []
                    for code in codes[(p * 5)..<(p * 5 + 5)] { out.append(try await OfjBinary.run(["barcode", code], environment: environment)) }
                    return out
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let ok = results.filter { $0.status == 0 }.count
        let limited = results.filter { $0.stderr.contains("ofj keeps to at most the published rate of 15 product reads per minute") }.count
        XCTAssertEqual(server.requests.count, 15, "exactly the budget reached the server")
        XCTAssertEqual(ok, 15)
        XCTAssertEqual(limited, 5)
    }

    /// Replay never reaches the network, even with OPENFOODFACTS_BASE_URL set: the transcripts'
    /// cache misses (7622210288257) must show the offline line while a live server waits with
    /// the product, and the server must see no request.
    func testReplayNeverReachesTheNetwork() async throws {
        for _ in 0..<4 {
            server.enqueue(.init(status: 200, headers: [("Content-Type", "application/json")],
                                 body: Array(try fixture("off-product-7622210288257.json"))))
        }
        let transcripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("transcripts")
        let files = ["packaged-scan-barcode.ofjt", "packaged-assistant-logs-serving.ofjt"].map { transcripts.appendingPathComponent($0).path }
        let r = try await OfjBinary.run(["replay"] + files, environment: env)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("transcripts: 2 passed, 0 failed"), r.stdout)
        XCTAssertEqual(server.requests.count, 0, "a replay sent a request")
    }

    /// `@seed packaged` fails the replay with one line when it cannot be mapped, never half-seeded.
    func testSeedPackagedRefusesWhatItCannotMap() async throws {
        let cases = [
            (#"{"code": "3017620422004", "product": {"product_name": "X"}}"#, #"@seed packaged: "code": the check digit is wrong"#),
            ("not json", "@seed packaged takes a JSON object"),
            (#"{"products": [{"code": "3029330003533"}]}"#, #"@seed packaged: a search response needs "query""#),
        ]
        for (seed, message) in cases {
            let path = home.file("seed.ofjt")
            try Data("@clock 2026-11-29 08:30 UTC\n@seed packaged\n  \(seed)\n".utf8).write(to: URL(fileURLWithPath: path))
            let r = try await OfjBinary.run(["replay", path], environment: env)
            XCTAssertEqual(r.status, 1, r.stdout)
            XCTAssertTrue(r.stdout.contains("seed.ofjt:2: " + message), r.stdout)
            XCTAssertTrue(r.stdout.contains("transcripts: 0 passed, 1 failed"), r.stdout)
        }
        XCTAssertEqual(server.requests.count, 0)
    }
}
