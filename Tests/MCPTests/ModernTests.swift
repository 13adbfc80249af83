// The 2026-07-28 revision: server/discover, the per-request envelope, resultType and cache hints,
// and writes approved by multi round-trip requests (input_required, then a retry with the answer).
import Agent
import Base
import Foundation
import MCP
import XCTest

extension DispatchTests {
    func envelope(version: String = "2026-07-28", elicits: Bool = false) -> JSONValue {
        ["io.modelcontextprotocol/protocolVersion": .string(version),
         "io.modelcontextprotocol/clientCapabilities": elicits ? ["elicitation": ["form": [:]]] : [:],
         "io.modelcontextprotocol/clientInfo": ["name": "t", "version": "1"]]
    }

    /// Sends one 2026-07-28 request and waits for its answer.
    func modern(_ s: MCPServer, id: JSONValue, _ method: String, _ params: JSONValue = [:], meta: JSONValue? = nil,
                elicits: Bool = false) async throws -> JSONValue {
        guard case .object(var p) = params else { throw CancellationError() }
        p["_meta"] = meta ?? envelope(elicits: elicits)
        s.handle(line(["jsonrpc": "2.0", "id": id, "method": .string(method), "params": .object(p)]))
        return try await wire.response(id)
    }

    func text(_ r: JSONValue) -> String? { r["result"]?["content"]?[0]?["text"]?.stringValue }

    // MARK: - Discovery, versions, result shapes

    func testDiscoverNamesEveryRevisionTheCapabilitiesAndTheServer() async throws {
        let s = server()
        let r = try await modern(s, id: 1, "server/discover")
        let result = try XCTUnwrap(r["result"])
        XCTAssertEqual(result["supportedVersions"], ["2026-07-28", "2025-11-25", "2025-06-18"])
        XCTAssertEqual(result["resultType"], "complete")
        XCTAssertEqual(result["serverInfo"]?["name"], "ofj")
        XCTAssertEqual(result["_meta"]?["io.modelcontextprotocol/serverInfo"]?["name"], "ofj")
        XCTAssertEqual(result["capabilities"]?["tools"], ["listChanged": false])
        XCTAssertEqual(result["instructions"], "test")
        XCTAssertNotNil(result["ttlMs"]?.doubleValue)
        XCTAssertEqual(result["cacheScope"], "public")
        XCTAssertNil(s.session.protocolVersion, "2026-07-28 has no session: discover negotiates nothing")
    }

    func testAnUnsupportedOrMissingVersionIsRefusedAndLegacyStillWorks() async throws {
        let s = server()
        let future = try await modern(s, id: 1, "tools/list", meta: envelope(version: "2099-01-01"))
        XCTAssertEqual(future["error"]?["code"], -32022)
        XCTAssertEqual(future["error"]?["data"]?["requested"], "2099-01-01")
        XCTAssertEqual(future["error"]?["data"]?["supported"], ["2026-07-28", "2025-11-25", "2025-06-18"])
        // A handshake revision in the envelope: those are spoken through initialize.
        let old = try await modern(s, id: 2, "server/discover", meta: envelope(version: "2025-11-25"))
        XCTAssertEqual(old["error"]?["code"], -32022)
        XCTAssertTrue(old["error"]?["message"]?.stringValue?.contains("initialize") == true)
        // The envelope must carry the client's capabilities (an object), and a version that is a string.
        let noCaps = try await modern(s, id: 3, "tools/list", meta: ["io.modelcontextprotocol/protocolVersion": "2026-07-28"])
        XCTAssertEqual(noCaps["error"]?["code"], -32602)
        let badVersion = try await modern(s, id: 4, "tools/list", meta: ["io.modelcontextprotocol/protocolVersion": 5,
                                                                         "io.modelcontextprotocol/clientCapabilities": [:]])
        XCTAssertEqual(badVersion["error"]?["code"], -32602)
        s.handle(line(#"{"jsonrpc":"2.0","id":5,"method":"server/discover"}"#))
        let bareDiscover = try await wire.response(5)
        XCTAssertEqual(bareDiscover["error"]?["code"], -32602)
        // ping and logging/setLevel are gone in 2026-07-28.
        let ping = try await modern(s, id: 6, "ping")
        XCTAssertEqual(ping["error"]?["code"], -32601)
        let setLevel = try await modern(s, id: 7, "logging/setLevel", ["level": "info"])
        XCTAssertEqual(setLevel["error"]?["code"], -32601)
        // The same connection still serves a 2025 client exactly as before.
        let initialized = try await initialize(s, version: "2025-06-18")
        XCTAssertEqual(initialized["result"]?["protocolVersion"], "2025-06-18")
        s.handle(line(#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#))
        let legacyList = try await wire.response(8)
        XCTAssertNil(legacyList["result"]?["resultType"])
        XCTAssertNil(legacyList["result"]?["ttlMs"])
    }

    func testEveryResultCarriesResultTypeAndListsCarryCacheHints() async throws {
        let s = server()
        let tools = try await modern(s, id: 1, "tools/list")
        XCTAssertEqual(tools["result"]?["resultType"], "complete")
        XCTAssertEqual(tools["result"]?["cacheScope"], "public")
        XCTAssertGreaterThan(tools["result"]?["ttlMs"]?.doubleValue ?? 0, 0)
        XCTAssertGreaterThan(tools["result"]?["tools"]?.arrayValue?.count ?? 0, 0)
        let resources = try await modern(s, id: 2, "resources/list")
        XCTAssertEqual(resources["result"]?["resultType"], "complete")
        XCTAssertEqual(resources["result"]?["cacheScope"], "public")
        XCTAssertNotNil(resources["result"]?["ttlMs"]?.doubleValue)
        let templates = try await modern(s, id: 3, "resources/templates/list")
        XCTAssertEqual(templates["result"]?["resultType"], "complete")
        let read = try await modern(s, id: 4, "resources/read", ["uri": "ofj://goals"])
        XCTAssertEqual(read["result"]?["resultType"], "complete")
        XCTAssertNotNil(read["result"]?["contents"]?[0]?["text"])
        let call = try await modern(s, id: 5, "tools/call", ["name": "get_goals"])
        XCTAssertEqual(call["result"]?["resultType"], "complete")
        XCTAssertEqual(call["result"]?["isError"], false)
        XCTAssertEqual(call["result"]?["_meta"]?["io.modelcontextprotocol/serverInfo"]?["version"], "test")
        // Writes stay off without --allow-writes, in this revision too.
        let write = try await modern(s, id: 6, "tools/call", ["name": "log_food", "arguments": ["name": "Soup", "nutrients": ["energy_kcal": 1]]],
                                     elicits: true)
        XCTAssertEqual(write["result"]?["resultType"], "complete")
        XCTAssertEqual(write["result"]?["isError"], true)
        XCTAssertEqual(try entries(named: "Soup"), 0)
    }

    // MARK: - Writes by multi round-trip requests

    func testAnApprovedWriteIsWrittenOnceAndRetriesGetTheStoredResult() async throws {
        let s = server(allowWrites: true)
        let args: JSONValue = ["name": "Stew", "nutrients": ["energy_kcal": 321], "meal": "lunch"]
        let first = try await modern(s, id: 1, "tools/call", ["name": "log_food", "arguments": args], elicits: true)
        let asked = try XCTUnwrap(first["result"])
        XCTAssertEqual(asked["resultType"], "input_required")
        XCTAssertEqual(asked["inputRequests"]?["approval"]?["method"], "elicitation/create")
        XCTAssertEqual(asked["inputRequests"]?["approval"]?["params"]?["mode"], "form")
        XCTAssertTrue(asked["inputRequests"]?["approval"]?["params"]?["message"]?.stringValue?.contains("Stew") == true)
        XCTAssertTrue(asked["inputRequests"]?["approval"]?["params"]?["message"]?.stringValue?.contains("321") == true)
        let state = try XCTUnwrap(asked["requestState"]?.stringValue)
        XCTAssertEqual(try entries(named: "Stew"), 0, "nothing is written before the answer")
        XCTAssertFalse(wire.sent.contains { $0["method"] == "elicitation/create" }, "2026-07-28 sends no server-initiated requests")

        // A retry without the answer is asked the same question again.
        let reasked = try await modern(s, id: 2, "tools/call", ["name": "log_food", "arguments": args, "requestState": .string(state)], elicits: true)
        XCTAssertEqual(reasked["result"]?["resultType"], "input_required")
        XCTAssertEqual(reasked["result"]?["requestState"]?.stringValue, state)
        XCTAssertEqual(try entries(named: "Stew"), 0)

        let accept: JSONValue = ["approval": ["action": "accept", "content": [:]]]
        let done = try await modern(s, id: 3, "tools/call", ["name": "log_food", "arguments": args, "requestState": .string(state),
                                                              "inputResponses": accept], elicits: true)
        XCTAssertEqual(done["result"]?["resultType"], "complete")
        XCTAssertEqual(done["result"]?["isError"], false)
        XCTAssertEqual(try entries(named: "Stew"), 1)
        // The client retries the answered request (a lost response): the stored result, no second write.
        let again = try await modern(s, id: 4, "tools/call", ["name": "log_food", "arguments": args, "requestState": .string(state),
                                                               "inputResponses": accept], elicits: true)
        XCTAssertEqual(text(again), text(done))
        XCTAssertEqual(again["result"]?["resultType"], "complete")
        XCTAssertEqual(try entries(named: "Stew"), 1)
        let ledger = try ConversationStore(queue: queue).ledgerEntries()
        XCTAssertEqual(ledger.map(\.outcome), [.committed])
        XCTAssertEqual(ledger.first?.toolName, "log_food")
    }

    func testTwoRetriesAtOnceWriteOnce() async throws {
        let s = server(allowWrites: true)
        let args: JSONValue = ["name": "Race", "nutrients": ["energy_kcal": 10]]
        let first = try await modern(s, id: 1, "tools/call", ["name": "log_food", "arguments": args], elicits: true)
        let state = try XCTUnwrap(first["result"]?["requestState"])
        let retry: JSONValue = ["name": "log_food", "arguments": args, "requestState": state, "inputResponses": ["approval": ["action": "accept"]]]
        for id in 2...5 {
            guard case .object(var p) = retry else { return }
            p["_meta"] = envelope(elicits: true)
            s.handle(line(["jsonrpc": "2.0", "id": .number(Double(id)), "method": "tools/call", "params": .object(p)]))
        }
        for id in 2...5 { _ = try await wire.response(.number(Double(id))) }
        XCTAssertEqual(try entries(named: "Race"), 1)
        XCTAssertEqual(try ConversationStore(queue: queue).ledgerEntries().map(\.outcome), [.committed])
    }

    func testADeclinedWriteWritesNothingAndStaysDeclined() async throws {
        let s = server(allowWrites: true)
        let args: JSONValue = ["name": "Pie", "nutrients": ["energy_kcal": 400], "idempotency_key": "pie-1"]
        let first = try await modern(s, id: 1, "tools/call", ["name": "log_food", "arguments": args], elicits: true)
        let state = try XCTUnwrap(first["result"]?["requestState"])
        let decline: JSONValue = ["approval": ["action": "decline"]]
        let r = try await modern(s, id: 2, "tools/call", ["name": "log_food", "arguments": args, "requestState": state, "inputResponses": decline],
                                 elicits: true)
        XCTAssertEqual(r["result"]?["structuredContent"]?["denied"], true)
        XCTAssertEqual(r["result"]?["resultType"], "complete")
        XCTAssertEqual(try entries(named: "Pie"), 0)
        // Accepting afterwards with the same state changes nothing: the decision was taken.
        let late = try await modern(s, id: 3, "tools/call", ["name": "log_food", "arguments": args, "requestState": state,
                                                              "inputResponses": ["approval": ["action": "accept"]]], elicits: true)
        XCTAssertEqual(late["result"]?["structuredContent"]?["denied"], true)
        // A fresh call with the same idempotency key gets the stored decline, without asking.
        let fresh = try await modern(s, id: 4, "tools/call", ["name": "log_food", "arguments": args], elicits: true)
        XCTAssertEqual(fresh["result"]?["resultType"], "complete")
        XCTAssertEqual(fresh["result"]?["structuredContent"]?["denied"], true)
        XCTAssertEqual(try entries(named: "Pie"), 0)
        XCTAssertEqual(try ConversationStore(queue: queue).ledgerEntries().map(\.outcome), [.denied])
    }

    func testAClosedApprovalWritesNothing() async throws {
        let s = server(allowWrites: true)
        let args: JSONValue = ["name": "Closed", "nutrients": ["energy_kcal": 1]]
        let first = try await modern(s, id: 1, "tools/call", ["name": "log_food", "arguments": args], elicits: true)
        let state = try XCTUnwrap(first["result"]?["requestState"])
        let r = try await modern(s, id: 2, "tools/call", ["name": "log_food", "arguments": args, "requestState": state,
                                                           "inputResponses": ["approval": ["action": "cancel"]]], elicits: true)
        XCTAssertEqual(r["result"]?["isError"], true)
        XCTAssertEqual(try entries(named: "Closed"), 0)
        XCTAssertTrue(try ConversationStore(queue: queue).ledgerEntries().isEmpty)
    }

    func testAForgedOrBorrowedRequestStateIsRefused() async throws {
        let s = server(allowWrites: true)
        let accept: JSONValue = ["approval": ["action": "accept"]]
        let args: JSONValue = ["name": "Real", "nutrients": ["energy_kcal": 50]]
        // A state this process never issued.
        let forged = try await modern(s, id: 1, "tools/call", ["name": "log_food", "arguments": args,
                                                                "requestState": "00000000000000000000000000000000", "inputResponses": accept],
                                      elicits: true)
        XCTAssertEqual(forged["error"]?["code"], -32602)
        XCTAssertEqual(try entries(named: "Real"), 0)
        let wrongType = try await modern(s, id: 2, "tools/call", ["name": "log_food", "arguments": args, "requestState": 7, "inputResponses": accept],
                                         elicits: true)
        XCTAssertEqual(wrongType["error"]?["code"], -32602)
        // A real state, replayed with other arguments: the approval was for the previewed change only.
        let first = try await modern(s, id: 3, "tools/call", ["name": "log_food", "arguments": args], elicits: true)
        let state = try XCTUnwrap(first["result"]?["requestState"])
        let swapped = try await modern(s, id: 4, "tools/call", ["name": "log_food", "arguments": ["name": "Swapped", "nutrients": ["energy_kcal": 5000]],
                                                                 "requestState": state, "inputResponses": accept], elicits: true)
        XCTAssertEqual(swapped["error"]?["code"], -32602)
        XCTAssertEqual(try entries(named: "Swapped"), 0)
        // State from another server process (its table is empty): refused too.
        let other = server(allowWrites: true)
        let elsewhere = try await modern(other, id: 5, "tools/call", ["name": "log_food", "arguments": args, "requestState": state, "inputResponses": accept],
                                         elicits: true)
        XCTAssertEqual(elsewhere["error"]?["code"], -32602)
        XCTAssertEqual(try entries(named: "Real"), 0)
        // The genuine retry still works, once.
        let genuine = try await modern(s, id: 6, "tools/call", ["name": "log_food", "arguments": args, "requestState": state, "inputResponses": accept],
                                       elicits: true)
        XCTAssertEqual(genuine["result"]?["isError"], false)
        XCTAssertEqual(try entries(named: "Real"), 1)
    }

    func testWithoutElicitationTheClientsApprovalDecides() async throws {
        let s = server(allowWrites: true)
        let r = try await modern(s, id: 1, "tools/call", ["name": "log_food", "arguments": ["name": "Direct", "nutrients": ["energy_kcal": 5]]])
        XCTAssertEqual(r["result"]?["resultType"], "complete")
        XCTAssertEqual(r["result"]?["isError"], false)
        XCTAssertEqual(try entries(named: "Direct"), 1)
        XCTAssertEqual(try ConversationStore(queue: queue).ledgerEntries().map(\.outcome), [.committed])
    }

    func testAnApprovalOfAStaleCardWritesNothingAndAsksAgain() async throws {
        let s = server(allowWrites: true)
        // An entry to change, logged without elicitation (the client's own approval).
        let logged = try await modern(s, id: 1, "tools/call", ["name": "log_food", "arguments": ["name": "Toast", "nutrients": ["energy_kcal": 100]]])
        let entryID = try XCTUnwrap(logged["result"]?["structuredContent"]?["logged"]?["id"])
        let args: JSONValue = ["entry_id": entryID, "servings": 2]
        let first = try await modern(s, id: 2, "tools/call", ["name": "update_journal_entry", "arguments": args], elicits: true)
        let state = try XCTUnwrap(first["result"]?["requestState"])
        // The entry changes while the card is open.
        let edit = try await modern(s, id: 3, "tools/call", ["name": "update_journal_entry", "arguments": ["entry_id": entryID, "name": "Rye toast"]])
        XCTAssertEqual(edit["result"]?["isError"], false)
        let accept: JSONValue = ["approval": ["action": "accept"]]
        let stale = try await modern(s, id: 4, "tools/call", ["name": "update_journal_entry", "arguments": args, "requestState": state,
                                                               "inputResponses": accept], elicits: true)
        XCTAssertEqual(stale["result"]?["resultType"], "input_required", "a stale card is not written: the person is asked again")
        XCTAssertEqual(stale["result"]?["requestState"], state)
        let message = stale["result"]?["inputRequests"]?["approval"]?["params"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("Changed since the card you approved"), message)
        XCTAssertEqual(try journal.entries().first { $0.name == "Rye toast" }?.servings, 1)
        let done = try await modern(s, id: 5, "tools/call", ["name": "update_journal_entry", "arguments": args, "requestState": state,
                                                              "inputResponses": accept], elicits: true)
        XCTAssertEqual(done["result"]?["resultType"], "complete")
        XCTAssertEqual(done["result"]?["isError"], false)
        XCTAssertEqual(try journal.entries().first { $0.name == "Rye toast" }?.servings, 2)
    }

    func testAnIdempotencyKeyUsedByAnotherApprovalMeanwhileIsNotWrittenTwice() async throws {
        let s = server(allowWrites: true)
        let a: JSONValue = ["name": "Keyed A", "nutrients": ["energy_kcal": 10], "idempotency_key": "shared"]
        let b: JSONValue = ["name": "Keyed B", "nutrients": ["energy_kcal": 20], "idempotency_key": "shared"]
        let firstA = try await modern(s, id: 1, "tools/call", ["name": "log_food", "arguments": a], elicits: true)
        let firstB = try await modern(s, id: 2, "tools/call", ["name": "log_food", "arguments": b], elicits: true)
        let accept: JSONValue = ["approval": ["action": "accept"]]
        let doneA = try await modern(s, id: 3, "tools/call", ["name": "log_food", "arguments": a, "requestState": firstA["result"]?["requestState"] ?? .null,
                                                               "inputResponses": accept], elicits: true)
        XCTAssertEqual(doneA["result"]?["isError"], false)
        let doneB = try await modern(s, id: 4, "tools/call", ["name": "log_food", "arguments": b, "requestState": firstB["result"]?["requestState"] ?? .null,
                                                               "inputResponses": accept], elicits: true)
        XCTAssertEqual(doneB["result"]?["isError"], true)
        XCTAssertTrue(text(doneB)?.contains("already used for a different change") == true, text(doneB) ?? "")
        XCTAssertEqual(try entries(named: "Keyed A"), 1)
        XCTAssertEqual(try entries(named: "Keyed B"), 0)
    }
}
