// `ofj profile` (the person, standing notes) and `ofj weight` (weigh-ins with the smoothed trend).
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import OutputSafety

extension OfjCommands {
    static func profile(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("profile", summary: "who the journal is for: sex, birth date, height, activity, life stage, units, weight goal",
                    details: """
                        Set with KEY=VALUE pairs; VALUE none clears a key. Keys:
                          sex=female|male  birth=YYYY-MM-DD  height=180cm|1.8m|71in|5ft11in  activity=sedentary|light|moderate|active|very_active
                          life_stage=pregnant|lactating|none  units=metric|imperial  goal=lose|maintain|gain  rate=0.5kg/week
                        An impossible profile (born in the future, 30 m tall, pregnant with sex=male) is refused and nothing is stored.
                        """,
                    options: [.json],
                    subcommands: [
                        CommandSpec("set", summary: "set profile keys, e.g. sex=female birth=1990-03-15 height=168cm activity=moderate",
                                    arguments: [PositionalSpec("KEY=VALUE", variadic: true)],
                                    access: .write,
                                    action: journal(ctx) { c, inv in try c.profileSet(inv.arguments) }),
                        CommandSpec("notes", summary: "what the assistant should always know (allergies, diet, usual portions); no TEXT shows them",
                                    arguments: [PositionalSpec("TEXT", optional: true, variadic: true)],
                                    options: [.flag("--clear", "remove the notes")],
                                    access: .write,
                                    action: journal(ctx) { c, inv in try c.profileNotes(inv.arguments) }),
                    ],
                    access: .read,
                    action: journal(ctx) { c, inv in try c.profileShow(inv.arguments) })
    }

    static func weight(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("weight", summary: "log a weigh-in (ofj weight 80.4) or list them with the smoothed trend and weekly rate",
                    details: """
                        WEIGHT is kg or lb (80.4, 80.4kg, 177lb; a bare number is in --unit, else the profile's units).
                        Several weigh-ins a day are fine: the trend uses their mean. The trend is an exponentially
                        weighted mean (The Hacker's Diet's 10% a day) without start-up bias; the weekly rate is the
                        least-squares slope of the last 28 days. A weigh-in more than 20% from the trend is refused
                        unless --force.
                        """,
                    arguments: [PositionalSpec("WEIGHT", optional: true)],
                    options: [.value("--date", "DATE", .date, "the day of the weigh-in (default today)"),
                              .value("--unit", "UNIT", .choice(["kg", "lb"]), "the unit of a bare WEIGHT"),
                              .flag("--force", "log a weigh-in far from the trend without asking"),
                              .value("--days", "N", .integer(1...36_600), "list the last N days", default: "30"),
                              .json],
                    access: .write,
                    action: journal(ctx) { c, inv in try c.weight(inv.arguments) })
    }
}

extension JournalCommands {
    // MARK: - profile

    func profileShow(_ p: ParsedArguments) throws {
        let profile = try journal.profile()
        if p.has("--json") { try json(profile); return }
        out(Self.profileText(profile, today: journal.today(), notes: try journal.notes()))
    }

    func profileSet(_ p: ParsedArguments) throws {
        guard !p.positionals.isEmpty else { throw CLIError(OfjCommands.usage("profile", "set"), status: 2) }
        var profile = try journal.profile()
        // units first, so a bare height or rate in the same command reads in the new units; goal
        // before rate, so goal=maintain rate=… is refused rather than the rate silently dropped.
        let pairs = try p.positionals.map { pair -> (String, String) in
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { throw UsageError("'\(UsageError.quote(pair))' is not KEY=VALUE (e.g. height=180cm)", command: "ofj profile set") }
            return (kv[0], kv[1])
        }
        let order = { (key: String) in key == "units" ? 0 : key == "goal" ? 1 : 2 }
        for (k, v) in pairs.sorted(by: { order($0.0) < order($1.0) }) {
            do { profile = try profile.setting(k, to: v) } catch let e as ProfileError { throw CLIError(e.description, status: 2) }
        }
        do { try journal.setProfile(profile) } catch let e as JournalError { throw CLIError("\(e)", status: 2) }
        out(Self.profileText(profile, today: journal.today(), notes: try journal.notes()))
    }

    func profileNotes(_ p: ParsedArguments) throws {
        if p.has("--clear") {
            try journal.setNotes("")
            out("Standing notes removed.")
            return
        }
        let text = p.positionals.joined(separator: " ")
        if text.trimmingCharacters(in: .whitespaces).isEmpty {
            out(try journal.notes().map { TerminalText.sanitize($0) } ?? "No standing notes. Add them with: ofj profile notes \"…\"")
            return
        }
        try journal.setNotes(text)
        out("Standing notes saved (\(text.count) characters); every thread's assistant sees them.")
    }

    static func profileText(_ p: Profile, today: CalendarDay, notes: String?) -> String {
        var lines = ["Profile"]
        func row(_ k: String, _ v: String?) { lines.append("  " + k.padding(toLength: 11, withPad: " ", startingAt: 0) + (v ?? "not set")) }
        row("sex", p.sex?.rawValue)
        row("birth", p.birth.map { "\($0) (age \(p.age(on: today) ?? 0))" })
        row("height", p.heightCm.map(p.heightText))
        row("activity", p.activity.map { "\($0.rawValue) (\($0.meaning); ×\($0.factor.formattedAmount))" })
        row("life stage", p.lifeStage?.rawValue ?? "none")
        row("units", p.unitSystem.rawValue + (p.units == nil ? " (default)" : ""))
        row("goal", p.goal.map { g in g == .maintain ? "maintain" : "\(g.rawValue) " + (p.rateKgPerWeek.map { p.weightText($0, places: 2) + "/week" } ?? "(no rate)") })
        if let notes { lines.append("Standing notes: \(notes.count) characters (ofj profile notes)") }
        return TerminalText.sanitize(lines.joined(separator: "\n"))
    }

    // MARK: - weight

    func weight(_ p: ParsedArguments) throws {
        let profile = try journal.profile()
        if let text = p.positionals.first {
            try logWeight(text, p, profile: profile)
            return
        }
        let days = Int(p.value("--days") ?? "30") ?? 30
        let today = journal.today()
        let first = try today.adding(days: -(days - 1))
        let (weighIns, points) = try journal.queue.read { db in (try journal.weighIns(from: first, to: today, in: db), try journal.weightTrend(to: today, in: db)) }
        let shown = points.filter { $0.day >= first }
        let rate = WeightTrend.slopePerDay(points, endingOn: today).map { $0 * 7 }
        if p.has("--json") {
            let object: JSONValue = .object([
                "unit": .string("kg"),
                "weigh_ins": .array(weighIns.map { .object(["id": .string($0.id.uuidString), "day": .string($0.day.description), "kg": .number($0.kg), "source": .string($0.source)]) }),
                "trend": .array(shown.map { .object(["day": .string($0.day.description), "mean_kg": .number($0.mean.rounded(places: 3)),
                                                     "trend_kg": .number($0.trend.rounded(places: 3)), "weigh_ins": .number(Double($0.weighIns))]) }),
                "weekly_rate_kg": rate.map { .number($0.rounded(places: 3)) } ?? .null,
                "method": .string("bias-corrected EWMA, smoothing 0.1 a day; rate: least-squares slope of daily means over 28 days"),
            ])
            out(TerminalText.escapingJSON(object.serialized))
            return
        }
        guard !shown.isEmpty else { out("No weigh-ins in the last \(days) days. Log one with: ofj weight 80.4"); return }
        var lines = ["Weight, last \(days) days (trend: smoothed, without start-up bias)"]
        for pt in shown {
            let n = pt.weighIns > 1 ? "  (\(pt.weighIns) weigh-ins)" : ""
            lines.append("  \(pt.day)  \(profile.weightText(pt.mean).leftPadded(9))   trend \(profile.weightText(pt.trend).leftPadded(9))\(n)")
        }
        if let rate {
            lines.append("Rate: \(rate >= 0 ? "+" : "")\(profile.weightText(rate, places: 2))/week (last 28 days)")
        } else {
            lines.append("Rate: needs weigh-ins at least a week apart in the last 28 days")
        }
        out(lines.joined(separator: "\n"))
    }

    func logWeight(_ text: String, _ p: ParsedArguments, profile: Profile) throws {
        let parsed: (value: Double, unit: WeightUnit?)
        do { parsed = try Profile.parseWeight(text) } catch let e as ProfileError { throw CLIError(e.description, status: 2) }
        let given = parsed.unit ?? p.value("--unit").flatMap(WeightUnit.init(rawValue:))
        let unit = given ?? (profile.unitSystem == .imperial ? .lb : .kg)
        let kg = unit.kilograms(parsed.value)
        let day = try parseDay(p.value("--date"))
        let other: WeightUnit = unit == .kg ? .lb : .kg
        let otherKg = other.kilograms(parsed.value)
        let value = parsed.value.formattedAmount
        if !p.has("--force") {
            let reference = try journal.queue.read { try journal.weightTrend(to: day, in: $0) }.last?.trend
            if let ref = reference, abs(kg - ref) / ref > 0.2 {
                if given == nil, abs(otherKg - ref) / ref <= 0.2 {
                    throw CLIError("did you mean \(value) \(other.rawValue)? Your trend is \(profile.weightText(ref)); give the unit (\(value)\(other.rawValue)) or --force", status: 2)
                }
                throw CLIError("\(value) \(unit.rawValue) is more than 20% from your trend of \(profile.weightText(ref)); check it, or log it with --force", status: 2)
            }
            if reference == nil, given == nil, unit == .kg ? parsed.value > 150 : parsed.value < 66 {
                throw CLIError("did you mean \(value) \(other.rawValue)? Your units are \(profile.unitSystem.rawValue); give the unit (\(value)\(unit.rawValue) or \(value)\(other.rawValue)) or --force", status: 2)
            }
        }
        let w: WeighIn
        do { w = try journal.logWeight(kg: kg, day: day, source: "cli") } catch let e as JournalError { throw CLIError("\(e)", status: 2) }
        let trend = try journal.queue.read { try journal.weightTrend(to: w.day, in: $0) }.last?.trend
        out("Logged \(profile.weightText(w.kg)) on \(w.day)" + (trend.map { "; trend \(profile.weightText($0))" } ?? "") + ".")
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
