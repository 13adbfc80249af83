// Argument validation, rejection messages and result bounds of the tool registry.
import Base
import Testing
@testable import Agent

@Suite struct ToolRegistryTests {
    let registry = ToolRegistry([LookupTool(), AddEntryTool()])

    func rejection(_ name: String, _ args: String) -> String? {
        if case .failure(let r) = registry.resolve(ToolCall(id: "c", name: name, arguments: args)) { return r.message }
        return nil
    }

    @Test func acceptsValidArguments() throws {
        guard case .success(let r) = registry.resolve(ToolCall(id: "c", name: "add_entry", arguments: #"{"item":"egg","grams":50}"#)) else {
            Issue.record("rejected valid arguments"); return
        }
        #expect(r.tool.name == "add_entry")
        #expect(r.arguments["grams"] == 50)
        if case .failure = registry.resolve(ToolCall(id: "c", name: "lookup", arguments: "  {\"query\":\"a\",\"limit\":3} ")) { Issue.record("rejected") }
    }

    @Test func rejectsPrecisely() {
        #expect(rejection("nope", "{}") == "unknown tool 'nope'; available tools: lookup, add_entry")
        #expect(rejection("lookup", "{\"query\":")?.hasPrefix("arguments for 'lookup' are not valid JSON (invalid JSON at byte") == true)
        #expect(rejection("lookup", "[1]") == "arguments for 'lookup' must be a JSON object, got array")
        #expect(rejection("lookup", "{}") == "invalid arguments for 'lookup': missing required argument 'query'")
        #expect(rejection("lookup", #"{"query":5}"#) == "invalid arguments for 'lookup': query: expected string, got integer")
        #expect(rejection("lookup", #"{"query":"a","limit":2.5}"#) == "invalid arguments for 'lookup': limit: expected integer, got number")
        #expect(rejection("lookup", #"{"query":"a","limit":0}"#) == "invalid arguments for 'lookup': limit: must be at least 1, got 0")
        #expect(rejection("lookup", #"{"query":"a","limit":51}"#) == "invalid arguments for 'lookup': limit: must be at most 50, got 51")
        #expect(rejection("lookup", #"{"query":"a","extra":1}"#) == "invalid arguments for 'lookup': unexpected argument 'extra'; allowed: limit, query")
        #expect(rejection("add_entry", #"{"item":"egg","grams":-1}"#) == "invalid arguments for 'add_entry': grams: must be at least 0, got -1")
    }

    @Test func validatesNestedSchemas() {
        let schema: JSONValue = [
            "type": "object",
            "properties": [
                "meal": ["type": "string", "enum": ["breakfast", "lunch"]],
                "items": ["type": "array", "minItems": 1, "items": [
                    "type": "object", "required": ["id"],
                    "properties": ["id": ["type": "string"], "qty": ["type": "number", "exclusiveMinimum": 0]],
                    "additionalProperties": false,
                ]],
                "note": ["type": ["string", "null"], "maxLength": 3],
            ],
        ]
        func check(_ json: String) -> String? { SchemaValidator.firstViolation(of: (try? JSONValue.parse(json)) ?? .null, against: schema) }
        #expect(check(#"{"meal":"lunch","items":[{"id":"a","qty":1}],"note":null}"#) == nil)
        #expect(check(#"{"meal":"dinner"}"#) == #"meal: must be one of "breakfast", "lunch", got "dinner""#)
        #expect(check(#"{"items":[]}"#) == "items: must have at least 1 items, got 0")
        #expect(check(#"{"items":[{"id":"a"},{"qty":1}]}"#) == "missing required argument 'items[1].id'")
        #expect(check(#"{"items":[{"id":"a","qty":0}]}"#) == "items[0].qty: must be greater than 0, got 0")
        #expect(check(#"{"items":[{"id":"a","x":0}]}"#) == "unexpected argument 'items[0].x'; allowed: id, qty")
        #expect(check(#"{"note":"long"}"#) == "note: must have at most 3 characters, got 4")
        #expect(check(#"{"note":1}"#) == "note: expected string or null, got integer")
    }

    @Test func boundsLargeResultsWithANote() {
        let small = ToolOutput(content: "ok", summary: "line one\nline two")
        #expect(registry.bounded(small).content == "ok")
        #expect(registry.bounded(small).summary == "line one line two")

        let big = ToolOutput(content: String(repeating: "é", count: 20_000), summary: "big")
        let bounded = registry.bounded(big)
        #expect(bounded.content.utf8.count <= ToolRegistry.defaultResultLimit)
        #expect(bounded.content.contains("[truncated: the result was 40000 bytes"))
        #expect(bounded.content.hasPrefix("éé"))
        #expect(!bounded.content.contains("\u{FFFD}"))
    }
}
