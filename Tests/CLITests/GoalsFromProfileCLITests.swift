// Issue 33 §2: `ofj goals from-profile` end to end: an incomplete profile is one line, nothing
// changes without approval (no terminal: refused), --yes applies the card in one undo step, and
// `ofj goals` and `ofj day` then mark the goals as the profile's.
import Foundation
import Testing
import TestSupport

@Suite struct GoalsFromProfileCLITests {
    let home = TempDirectory(prefix: "ofj-targets")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"] }

    func ofj(_ args: [String], status: Int32 = 0) async throws -> OfjBinary.Result {
        let r = try await OfjBinary.run(args, environment: env)
        #expect(r.status == status, "\(args): \(r.stderr)")
        return r
    }

    func goals() async throws -> [String: Double] {
        let r = try await ofj(["goals", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Double])
    }

    /// On a terminal the card is shown and y/N asked: n changes nothing, y applies.
    @Test func aTerminalIsAskedFirst() async throws {
        _ = try await ofj(["profile", "set", "sex=male", "birth=1950-02-01", "height=175cm", "activity=sedentary"])
        _ = try await ofj(["weight", "78"])
        let binary = try #require(OfjBinary.path)
        let no = try PTYProcess(executable: binary, arguments: ["goals", "from-profile"], environment: env, columns: 160)
        let card = await no.read(until: "Apply these targets? [y/N]")
        #expect(card?.contains("Personal targets for males >70 y") == true, "\(card ?? "")")
        #expect(card?.contains("Vitamin D") == true && card?.contains("→ 20 mcg") == true)
        no.send("n\r")
        #expect(await no.waitForExit() == 1)
        let before = try await goals()
        #expect(before["vitamin_d_mcg"] == 20 && before["calcium_mg"] == 1300)
        let yes = try PTYProcess(executable: binary, arguments: ["goals", "from-profile"], environment: env, columns: 160)
        _ = await yes.read(until: "Apply these targets? [y/N]")
        yes.send("y\r")
        #expect(await yes.read(until: "goals set from your profile") != nil)
        #expect(await yes.waitForExit() == 0)
        #expect(try await goals()["calcium_mg"] == 1200)
    }

    @Test func anIncompleteProfileIsOneLineNamingTheFieldsItNeeds() async throws {
        let empty = try await ofj(["goals", "from-profile"], status: 2)
        #expect(empty.stderr == "ofj: goals from-profile needs sex, birth, height and activity in the profile; set them with: ofj profile set sex=female|male birth=YYYY-MM-DD height=170cm activity=moderate\n")
        _ = try await ofj(["profile", "set", "sex=female", "activity=light"])
        let partial = try await ofj(["goals", "from-profile", "--yes"], status: 2)
        #expect(partial.stderr.hasPrefix("ofj: goals from-profile needs birth and height in the profile;"), "\(partial.stderr)")
        #expect(try await goals()["calcium_mg"] == 1300)
    }

    @Test func nothingChangesWithoutApprovalAndYesAppliesTheCardInOneUndoStep() async throws {
        _ = try await ofj(["profile", "set", "sex=female", "birth=1985-04-02", "height=168cm", "activity=moderate"])
        // No terminal to ask on: the card is shown, the goals stay.
        let refused = try await ofj(["goals", "from-profile"], status: 1)
        #expect(refused.stdout.contains("Personal targets for females 31–50 y"))
        #expect(refused.stdout.contains("needs your weight"))
        #expect(refused.stderr.contains("no terminal to ask on; add --yes"))
        #expect(try await goals()["calcium_mg"] == 1300)

        _ = try await ofj(["weight", "68"])
        let bad = try await ofj(["goals", "from-profile", "--weekdays", "mon-fri=2200,fri=2000", "--yes"], status: 2)
        #expect(bad.stderr == "ofj: --weekdays names fri twice\n")
        let applied = try await ofj(["goals", "from-profile", "--weekdays", "mon-fri=2200,sat-sun=2500", "--yes"])
        #expect(applied.stdout.contains("Mifflin–St Jeor: 10 × 68 kg + 6.25 × 168 cm"))
        #expect(applied.stdout.contains("× 1.55 (activity moderate)"))
        #expect(applied.stdout.contains("mon–fri 2,200 kcal, sat–sun 2,500 kcal"))
        #expect(applied.stdout.contains("✓ 33 goals set from your profile (females 31–50 y)"))
        let g = try await goals()
        #expect(g["calcium_mg"] == 1000 && g["iron_mg"] == 18 && g["protein_g"] == 54 && g["sodium_mg"] == 2300)

        let view = try await ofj(["goals"])
        #expect(view.stdout.hasPrefix("Daily goals (personal)\n"))
        #expect(view.stdout.contains("Calcium:          1,000 mg    DRI   RDA · Elements RDA/AI, 2011                         UL 2,500 mg"))
        #expect(view.stdout.contains("Saturated fat:    20 g        FDA"))
        #expect(view.stdout.contains("DRI = from your profile (females 31–50 y"))

        let day = try await ofj(["day", "--json"])
        let d = try #require(try JSONSerialization.jsonObject(with: Data(day.stdout.utf8)) as? [String: Any])
        let energy = try #require((d["goals"] as? [[String: Any]])?.first { $0["id"] as? String == "energy_kcal" })
        #expect([2200, 2500].contains(energy["goal"] as? Double ?? 0))
        #expect(energy["origin"] as? String == "profile")
        #expect(try await ofj(["day"]).stdout.contains("Goals (personal):"))

        // Approving the same card again changes nothing; one undo puts the FDA defaults back.
        let again = try await ofj(["goals", "from-profile", "--weekdays", "mon-fri=2200,sat-sun=2500", "--yes"])
        #expect(again.stdout.contains("These are already your goals: nothing would change."))
        _ = try await ofj(["undo", "--yes"])
        #expect(try await goals()["calcium_mg"] == 1300)
        #expect(try await ofj(["goals"]).stdout.hasPrefix("Daily goals (FDA defaults)\n"))
    }
}
