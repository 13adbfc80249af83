// Test helpers: the shipped database, a scratch directory, and small hand-written resource files.
import Foundation
@testable import ReferenceFoods

/// A directory under the system temp folder, removed when released (ReferenceFoodsTests does not
/// depend on TestSupport, which pulls in SQLite and HTTP).
final class ScratchDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("ofj-reference-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path).appendingPathComponent(name))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

enum Fixtures {
    static let shipped = ReferenceDatabase.shared

    static let columnsHeader = "id\tunit\tsr28_nutr_no\tname\tfoods_with_value\n"
    static let foodsHeader = "ndb_no\tfdc_id\tfood_group\tdescription\tcommon_name\tenergy_kcal\tprotein_g\tsodium_mg\n"
    static let portionsHeader = "ndb_no\tseq\tamount\tmeasure\tgram_weight\n"
    static let columns = columnsHeader
        + "energy_kcal\tkcal\t208\tEnergy\t3\nprotein_g\tg\t203\tProtein\t2\nsodium_mg\tmg\t307\tSodium, Na\t2\n"

    /// A three-food database: one with a blank protein, one with a blank sodium.
    static func miniDatabase(in directory: ScratchDirectory) throws -> ReferenceDatabase {
        try directory.write("columns.tsv", columns)
        try directory.write("foods.tsv", foodsHeader
            + "00001\t100\tTest Group\tWidget, plain, raw\t\t50\t\t12.5\n"
            + "00002\t\tTest Group\tWidget, smoked\tgizmo\t80\t1.25\t\n"
            + "00003\t300\tTest Group\tGadget, Crème, raw\t\t0\t0.0\t0\n")
        try directory.write("portions.tsv", portionsHeader
            + "00001\t1\t1\tpiece\t30\n00001\t2\t0.5\tcup (2 pieces)\t60\n")
        return ReferenceDatabase(directoryPath: directory.path)
    }
}
