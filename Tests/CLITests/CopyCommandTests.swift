// Issue 34 §2: `ofj copy` logs a meal or a day again with the originals' nutrients, in one undo
// step; a copy onto a day that already has the same entries asks (refused without a terminal).
import Foundation
import Testing
import TestSupport

@Suite struct CopyCommandTests {
    let home = TempDirectory(prefix: "ofj-copy")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"] }

    func ofj(_ args: [String]) async throws -> OfjBinary.Result {
        let r = try await OfjBinary.run(args, environment: env)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return r
    }

    func entries(_ day: String) async throws -> [[String: Any]] {
        let r = try await ofj(["day", day, "--json"])
        let view = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return (view["meals"] as? [[String: Any]] ?? []).flatMap { ($0["entries"] as? [[String: Any]]) ?? [] }
    }

    @Test func aCopiedMealHasTheOriginalsNutrientsAndUndoesInOneStep() async throws {
        _ = try await ofj(["log", "--ref", "01123", "--portion", "2 large", "--meal", "breakfast", "--date", "yesterday"])
        _ = try await ofj(["log", "Toast", "--kcal", "80.25", "--protein", "3.1", "--servings", "1.5", "--meal", "breakfast", "--date", "yesterday"])
        _ = try await ofj(["log", "Soup", "--kcal", "200", "--meal", "dinner", "--date", "yesterday"])
        let copied = try await ofj(["copy", "yesterday", "breakfast", "--to", "today", "lunch"])
        #expect(copied.stdout.hasPrefix("Copied 2 entries from "), "\(copied.stdout)")
        let originals = try await entries("yesterday").filter { $0["meal"] as? String == "breakfast" }
        let copies = try await entries("today")
        #expect(copies.count == 2)
        #expect(Set(copies.map { $0["meal"] as? String }) == ["lunch"])
        for (o, c) in zip(originals, copies) {
            #expect(c["name"] as? String == o["name"] as? String)
            #expect(c["servings"] as? Double == o["servings"] as? Double)
            #expect(c["nutrients"] as? [String: Double] == o["nutrients"] as? [String: Double])
            #expect(c["id"] as? String != o["id"] as? String)
        }
        // One undo step removes both copies.
        _ = try await ofj(["undo", "--yes"])
        #expect(try await entries("today").isEmpty)
        #expect(try await entries("yesterday").count == 3)
    }

    @Test func aWholeDayCopiesEachEntryToItsOwnMeal() async throws {
        _ = try await ofj(["log", "Eggs", "--kcal", "150", "--meal", "breakfast", "--date", "2026-11-28"])
        _ = try await ofj(["log", "Soup", "--kcal", "200", "--meal", "dinner", "--date", "2026-11-28"])
        _ = try await ofj(["copy", "2026-11-28", "--to", "2026-11-29"])
        let copies = try await entries("2026-11-29")
        #expect(copies.map { $0["meal"] as? String } == ["breakfast", "dinner"])
    }

    @Test func aSecondCopyAsksAndBadInputWritesNothing() async throws {
        _ = try await ofj(["log", "Eggs", "--kcal", "150", "--meal", "breakfast", "--date", "yesterday"])
        _ = try await ofj(["copy", "yesterday"])
        let again = try await OfjBinary.run(["copy", "yesterday"], environment: env)
        #expect(again.status == 1)
        #expect(again.stderr.hasSuffix("already has this entry; add --yes to copy again\n"), "\(again.stderr)")
        #expect(try await entries("today").count == 1)
        let empty = try await OfjBinary.run(["copy", "yesterday", "lunch"], environment: env)
        #expect(empty.status == 1)
        let itself = try await OfjBinary.run(["copy", "today", "--to", "today"], environment: env)
        #expect(itself.status == 2)
        _ = try await ofj(["copy", "yesterday", "--yes"])
        #expect(try await entries("today").count == 2)
    }
}
