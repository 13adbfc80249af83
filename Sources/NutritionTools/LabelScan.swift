// Reading a nutrition label from an attached image (issue 19): what the model is told, and which
// tools' approval cards name the file the values were read from.
import Agent

public enum LabelScan {
    /// Tools that take nutrient values the model may read from a label.
    public static let toolNames: Set<String> = [NutritionToolName.logFood.rawValue, NutritionToolName.saveFood.rawValue]

    /// System prompt guidance for attachments.
    public static let prompt = """
        Attachments (images and PDFs the person attached):
        - The current message's attachments are shown to you after its text, each introduced by a line "[attachment aN: …]". \
        Earlier ones appear as a line saying they are not shown again; call \(AttachmentWindow.readToolName) with that id to look again.
        - A nutrition label with "log this" or "save this" (to the Food Bank): propose \(NutritionToolName.saveFood.rawValue) (saving; enable_tools food_bank) or \
        \(NutritionToolName.logFood.rawValue) (logging) with the \
        name and brand as printed, the serving size exactly as the label states it (serving_quantity and serving_unit, with serving_grams \
        or serving_ml when printed), and the nutrients per serving (\(NutritionToolName.logFood.rawValue): quantity 1 serving, nutrients for that serving). \
        Report only values you can read clearly on the label; leave out any value that is cut off, blurred or absent — never estimate one. \
        Say which values you left out. The person checks every value on the approval card.
        - A photo of a meal: describe what you see and ask before logging; portion sizes from a photo are estimates, say so.
        """

    /// What the label tools' descriptions add when attachments are on.
    public static let descriptionAddendum = " From an attached label: its serving and per-serving values; leave out any you cannot read."

    /// `tools` with the label tools' approval cards naming the attached files their values came from.
    public static func citingAttachments(_ tools: [any Tool]) -> [any Tool] {
        tools.map { tool in
            guard toolNames.contains(tool.name), let write = tool as? any WriteTool else { return tool }
            return AttachmentCitingWriteTool(write, descriptionAddendum: descriptionAddendum)
        }
    }
}
