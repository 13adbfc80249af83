// Issue 34 §3: `ofj log "2 eggs and toast"` is read as the offline assistant reads it, shows each
// food's card and logs with --yes; what it cannot log says so and names the command that would.
import Foundation
import Testing
import TestSupport

@Suite struct PlainWordsLogTests {
    let home = TempDirectory(prefix: "ofj-plain-log")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"] }

    func entries() async throws -> [[String: Any]] {
        let r = try await OfjBinary.run(["day", "--json"], environment: env)
        let day = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return (day["meals"] as? [[String: Any]] ?? []).flatMap { ($0["entries"] as? [[String: Any]]) ?? [] }
    }

    @Test func wordsWithYesLogEachFoodWithItsCard() async throws {
        let r = try await OfjBinary.run(["log", "2 eggs and toast for breakfast", "--yes"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Log a reference food (USDA 01123): Egg, whole, raw, fresh — 2 large (100 g)"), "\(r.stdout)")
        #expect(r.stdout.contains("✓ logged Egg, whole, raw, fresh to breakfast"), "\(r.stdout)")
        let logged = try await entries()
        #expect(logged.count == 2)
        #expect(Set(logged.map { $0["meal"] as? String }) == ["breakfast"])
        // The same nutrients as logging the reference food by its id.
        let byID = try await OfjBinary.run(["log", "--ref", "01123", "--portion", "2 large", "--json"], environment: env)
        let direct = try #require(try JSONSerialization.jsonObject(with: Data(byID.stdout.utf8)) as? [String: Any])
        let eggs = try #require(logged.first { ($0["name"] as? String)?.hasPrefix("Egg") == true })
        #expect(eggs["nutrients"] as? [String: Double] == direct["nutrients"] as? [String: Double])
    }

    @Test func unquotedWordsAndMealAndDateOptions() async throws {
        let r = try await OfjBinary.run(["log", "1", "banana", "--meal", "lunch", "--date", "yesterday", "--yes", "--json"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let logged = try #require(out["logged"] as? [[String: Any]])
        let entry = try #require(logged.first?["logged"] as? [String: Any])
        #expect(entry["meal"] as? String == "lunch")
        #expect(try await entries().isEmpty) // yesterday, not today
    }

    @Test func withoutATerminalOrYesNothingIsWritten() async throws {
        let r = try await OfjBinary.run(["log", "2 eggs"], environment: env)
        #expect(r.status == 1)
        #expect(r.stdout.contains("Egg, whole, raw, fresh"), "the card is shown: \(r.stdout)")
        #expect(r.stderr == "ofj: ofj log changes your journal and there is no terminal to ask on; add --yes to do it without asking\n")
        #expect(try await entries().isEmpty)
    }

    @Test func whatCannotBeLoggedSaysWhatWorks() async throws {
        let unknown = try await OfjBinary.run(["log", "xyzzyq", "--yes"], environment: env)
        #expect(unknown.status == 1)
        #expect(unknown.stdout.contains("I couldn't find \"xyzzyq\""), "\(unknown.stdout)")
        #expect(unknown.stderr.contains("`ofj ref WORDS`") && unknown.stderr.contains("ofj log --ref ID"), "\(unknown.stderr)")
        let several = try await OfjBinary.run(["log", "rice", "--yes"], environment: env)
        #expect(several.status == 1)
        #expect(several.stdout.contains("[ref 20045]"), "\(several.stdout)")
        #expect(several.stderr.contains("ofj log --ref 20045"), "\(several.stderr)")
        let question = try await OfjBinary.run(["log", "what did I eat today"], environment: env)
        #expect(question.status == 2)
        #expect(question.stderr.contains("ofj ask"), "\(question.stderr)")
        let stray = try await OfjBinary.run(["log", "--food", "Oats", "--yes"], environment: env)
        #expect(stray.status == 2)
        #expect(try await entries().isEmpty)
    }
}
