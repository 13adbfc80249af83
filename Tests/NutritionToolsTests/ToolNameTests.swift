// The tools' published names: every tool takes its name from NutritionToolName, each name once.
import Testing
import Agent
@testable import NutritionTools

@Suite struct ToolNameTests {
    @Test func everyNutritionToolIsNamedByItsPublishedNameAndEveryNameByATool() throws {
        let f = try PackagedFixture(replies: [])
        let names = f.registry.tools.map(\.name)
        let published = NutritionToolName.journalReads + NutritionToolName.journalWrites
            + NutritionToolName.personReads + NutritionToolName.personWrites
            + NutritionToolName.packagedReads + NutritionToolName.packagedWrites
        #expect(names == published.map(\.rawValue))
        let all = published + NutritionToolName.mcpReads
        #expect(Set(all) == Set(NutritionToolName.allCases) && all.count == NutritionToolName.allCases.count)
        #expect(PackagedTools.readToolNames + PackagedTools.writeToolNames == (NutritionToolName.packagedReads + NutritionToolName.packagedWrites).map(\.rawValue))
        for tool in f.registry.tools {
            let published = try #require(NutritionToolName(rawValue: tool.name))
            let expected: ToolEffect = (NutritionToolName.journalWrites + NutritionToolName.personWrites + NutritionToolName.packagedWrites).contains(published) ? .write : .read
            #expect(tool.effect == expected, "\(tool.name)")
        }
    }

    @Test func theLabelToolsAreTheOnesThatTakeNutrientsFromALabel() {
        #expect(LabelScan.toolNames == [NutritionToolName.logFood.rawValue, NutritionToolName.saveFood.rawValue])
        #expect(LabelScan.prompt.contains("propose save_food (saving; enable_tools food_bank) or log_food (logging)"))
        #expect(LabelScan.prompt.contains("call read_attachment with that id"))
    }
}
