// The National Academies' Dietary Reference Intakes (Resources/dri.tsv, see PROVENANCE.md): per
// life-stage group and nutrient the RDA or AI, the UL or CDRR, the source table and the caveats.
import Foundation

/// A DRI life-stage group, as the summary tables name them.
public enum DRIGroup: String, Sendable, CaseIterable, Codable {
    case infant0to6mo = "infant_0_6mo", infant7to12mo = "infant_7_12mo", child1to3 = "child_1_3", child4to8 = "child_4_8"
    case male9to13 = "male_9_13", male14to18 = "male_14_18", male19to30 = "male_19_30", male31to50 = "male_31_50"
    case male51to70 = "male_51_70", male71plus = "male_71_plus"
    case female9to13 = "female_9_13", female14to18 = "female_14_18", female19to30 = "female_19_30", female31to50 = "female_31_50"
    case female51to70 = "female_51_70", female71plus = "female_71_plus"
    case pregnancy14to18 = "pregnancy_14_18", pregnancy19to30 = "pregnancy_19_30", pregnancy31to50 = "pregnancy_31_50"
    case lactation14to18 = "lactation_14_18", lactation19to30 = "lactation_19_30", lactation31to50 = "lactation_31_50"

    /// "females 31–50 y", "pregnancy ≤18 y", "infants 7–12 mo": the tables' own words.
    public var label: String {
        let parts = rawValue.split(separator: "_")
        let who: String
        switch parts[0] {
        case "infant": who = "infants"
        case "child": who = "children"
        case "male": who = "males"
        case "female": who = "females"
        default: who = String(parts[0])
        }
        if rawValue.hasSuffix("mo") { return "\(who) \(parts[1])–\(parts[2].dropLast(2)) mo" }
        if parts[2] == "plus" { return "\(who) >\((Int(parts[1]) ?? 71) - 1) y" }
        if parts[1] == "14", who == "pregnancy" || who == "lactation" { return "\(who) ≤18 y" }
        return "\(who) \(parts[1])–\(parts[2]) y"
    }

    /// The group for a person: pregnancy and lactation have their own groups (≤18, 19–30, 31–50;
    /// younger or older ages use the nearest one), infants go by months, everyone else by sex and years.
    public static func group(sex: Sex, ageYears: Int, ageMonths: Int, lifeStage: LifeStage?) -> DRIGroup {
        if let stage = lifeStage, sex == .female, ageYears >= 9 {
            switch (stage, ageYears) {
            case (.pregnant, ...18): return .pregnancy14to18
            case (.pregnant, 19...30): return .pregnancy19to30
            case (.pregnant, _): return .pregnancy31to50
            case (.lactating, ...18): return .lactation14to18
            case (.lactating, 19...30): return .lactation19to30
            case (.lactating, _): return .lactation31to50
            }
        }
        switch ageYears {
        case ..<1: return ageMonths < 6 ? .infant0to6mo : .infant7to12mo
        case 1...3: return .child1to3
        case 4...8: return .child4to8
        default: break
        }
        let male = sex == .male
        switch ageYears {
        case 9...13: return male ? .male9to13 : .female9to13
        case 14...18: return male ? .male14to18 : .female14to18
        case 19...30: return male ? .male19to30 : .female19to30
        case 31...50: return male ? .male31to50 : .female31to50
        case 51...70: return male ? .male51to70 : .female51to70
        default: return male ? .male71plus : .female71plus
        }
    }

    /// The protein RDA per kg of body weight (the AI for 0–6 months), from the macronutrient
    /// report's protein chapter (2002/2005): the g/d in the summary table is this times the
    /// group's reference weight. Pregnancy is the figure for the second half of pregnancy.
    public var proteinPerKg: Double {
        switch self {
        case .infant0to6mo: return 1.52
        case .infant7to12mo: return 1.2
        case .child1to3: return 1.05
        case .child4to8, .male9to13, .female9to13: return 0.95
        case .male14to18, .female14to18: return 0.85
        case .pregnancy14to18, .pregnancy19to30, .pregnancy31to50: return 1.1
        case .lactation14to18, .lactation19to30, .lactation31to50: return 1.3
        default: return 0.8
        }
    }
}

/// What the DRI gives as the intake to reach.
public enum DRIIntakeKind: String, Sendable, Codable {
    /// Recommended Dietary Allowance: meets the need of 97–98% of the group.
    case rda = "RDA"
    /// Adequate Intake: set where the evidence does not allow an RDA.
    case ai = "AI"
    /// No RDA or AI for this group ("no DRI").
    case none
}

/// What the DRI gives as the intake to stay under.
public enum DRILimitKind: String, Sendable, Codable {
    /// Tolerable Upper Intake Level.
    case ul = "UL"
    /// Chronic Disease Risk Reduction intake (sodium, 2019).
    case cdrr = "CDRR"
    /// None set (ND, "not determinable", in the UL tables).
    case none
}

/// One cell pair of the tables: a group's intake and limit for one nutrient, in ofj's canonical unit.
public struct DRIValue: Sendable, Hashable {
    public let group: DRIGroup
    public let nutrient: String
    public let intakeKind: DRIIntakeKind
    public let intake: Double?
    public let limitKind: DRILimitKind
    public let limit: Double?
    /// "DRI summary tables, Vitamins RDA/AI, NASEM; <report> (<year>)".
    public let intakeSource: String
    public let limitSource: String
    /// Units and applicability ("as RAE; the UL is for preformed vitamin A only"); empty when none.
    public let caveat: String
}

/// A DRI resource that cannot be read: a bug in the build, never the person's data.
public struct DRIDataError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// The whole DRI table, read once from the bundled resource.
public struct DRITable: Sendable {
    public let values: [DRIValue]
    private let index: [String: DRIValue]

    /// The intake and limit of `nutrient` for `group` (nil when the table has no row: a nutrient ofj has no target for).
    public func value(_ group: DRIGroup, _ nutrient: String) -> DRIValue? { index[group.rawValue + "|" + nutrient] }

    /// Every nutrient the table covers, in the catalog's display order.
    public var nutrients: [String] { NutrientCatalog.sorted(Set(values.map(\.nutrient))) }

    /// Parses dri.tsv (a header line, then group, nutrient, unit, intake kind, intake, limit kind,
    /// limit, intake source, limit source, caveat). Any malformed line is an error.
    public static func parse(_ text: String) throws -> DRITable {
        var out: [DRIValue] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() where n > 0 {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func bad(_ why: String) -> DRIDataError { DRIDataError(description: "dri.tsv line \(n + 1): \(why)") }
            guard c.count == 10 else { throw bad("has \(c.count) columns, not 10") }
            guard let group = DRIGroup(rawValue: c[0]) else { throw bad("unknown group \(c[0])") }
            guard let nutrient = NutrientCatalog.nutrient(c[1]) else { throw bad("unknown nutrient \(c[1])") }
            guard nutrient.unit.rawValue == c[2] else { throw bad("\(c[1]) is in \(nutrient.unit.rawValue), not \(c[2])") }
            guard let ik = DRIIntakeKind(rawValue: c[3]), let lk = DRILimitKind(rawValue: c[5]) else { throw bad("unknown kind") }
            let intake = Double(c[4]), limit = Double(c[6])
            guard (ik == .none) == (intake == nil), (lk == .none) == (limit == nil) else { throw bad("a value does not match its kind") }
            guard (intake ?? 1) > 0, (limit ?? 1) > 0 else { throw bad("a value is not positive") }
            out.append(DRIValue(group: group, nutrient: c[1], intakeKind: ik, intake: intake, limitKind: lk, limit: limit,
                                intakeSource: c[7], limitSource: c[8], caveat: c[9]))
        }
        var index: [String: DRIValue] = [:]
        for v in out {
            let key = v.group.rawValue + "|" + v.nutrient
            guard index[key] == nil else { throw DRIDataError(description: "dri.tsv: \(key) appears twice") }
            index[key] = v
        }
        return DRITable(values: out, index: index)
    }

    private init(values: [DRIValue], index: [String: DRIValue]) {
        self.values = values
        self.index = index
    }

    /// The bundled table (read on first use).
    public static func bundled() throws -> DRITable { try loaded.get() }

    private static let loaded: Result<DRITable, DRIDataError> = {
        guard let url = Bundle.module.url(forResource: "dri", withExtension: "tsv", subdirectory: "Resources")
            ?? Bundle.module.url(forResource: "dri", withExtension: "tsv") else {
            return .failure(DRIDataError(description: "the DRI table (dri.tsv) is missing from this build"))
        }
        do {
            let text = try String(contentsOf: url, encoding: .utf8)
            return .success(try parse(text))
        } catch let e as DRIDataError {
            return .failure(e)
        } catch {
            return .failure(DRIDataError(description: "the DRI table (dri.tsv) could not be read"))
        }
    }()
}
