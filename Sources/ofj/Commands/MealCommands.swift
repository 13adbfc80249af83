// `ofj meals [set|reset]`: the meal schedule in config.json (when breakfast, lunch and dinner
// start), which picks the meal of a new entry.
import Base
import CommandLineKit
import OutputSafety

extension OfjCommands {
    static func meals(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("meals", summary: "show the meal schedule: when breakfast, lunch and dinner start (the default meal of a new entry)",
                    options: [.json],
                    subcommands: [
                        CommandSpec("set", summary: "set meal start times in config.json, e.g. breakfast=06:30 lunch=12:00 dinner=18:30",
                                    arguments: [PositionalSpec("MEAL=HH:MM", variadic: true)],
                                    action: .sync { inv in
                                        let s = try MealConfig.set(inv.arguments.positionals, configPath: ctx.paths.configPath)
                                        writeOut(MealConfig.describe(s, configured: true))
                                        return 0
                                    }),
                        CommandSpec("add", summary: "add a meal of your own: ofj meals add \"Pre-workout\" --at 16:30 (entries take --meal NAME)",
                                    details: "It runs from --at to the next meal's start: an entry eaten then with no --meal goes to it.\nA built-in meal's name (breakfast, lunch, dinner, snack, supper) is refused.",
                                    arguments: [PositionalSpec("NAME")],
                                    options: [.value("--at", "HH:MM", .text, "when the meal starts (24-hour)"), .json],
                                    action: .sync { inv in
                                        guard let at = inv.arguments.value("--at") else {
                                            throw CLIError("give when it starts: ofj meals add NAME --at HH:MM", status: 2)
                                        }
                                        let loaded = MealConfig.load(configPath: ctx.paths.configPath)
                                        let meals = try MealConfig.addCustom(inv.arguments.positionals[0], at: at, configPath: ctx.paths.configPath,
                                                                             schedule: loaded.schedule)
                                        if inv.arguments.has("--json") {
                                            writeOut(TerminalText.escapingJSON(PrettyJSON.format(["custom": MealConfig.customJSON(meals)])).trimmingCharacters(in: .newlines))
                                        } else {
                                            writeOut(MealConfig.describeCustom(meals))
                                        }
                                        return 0
                                    }),
                        CommandSpec("remove", summary: "remove a meal of your own (entries logged to it keep its name)",
                                    arguments: [PositionalSpec("NAME")], options: [.json],
                                    action: .sync { inv in
                                        try MealConfig.removeCustom(inv.arguments.positionals[0], configPath: ctx.paths.configPath)
                                        let meals = MealConfig.customMeals(configPath: ctx.paths.configPath)
                                        if inv.arguments.has("--json") {
                                            writeOut(TerminalText.escapingJSON(PrettyJSON.format(["custom": MealConfig.customJSON(meals)])).trimmingCharacters(in: .newlines))
                                        } else {
                                            writeOut(MealConfig.describeCustom(meals))
                                        }
                                        return 0
                                    }),
                        CommandSpec("reset", summary: "back to the default schedule (breakfast 02:00, lunch 12:00, dinner 18:00)",
                                    action: .sync { _ in
                                        try MealConfig.reset(configPath: ctx.paths.configPath)
                                        writeOut(MealConfig.describe(.standard, configured: false))
                                        return 0
                                    }),
                    ],
                    action: .sync { inv in
                        let loaded = MealConfig.load(configPath: ctx.paths.configPath)
                        if let problem = loaded.problem { throw CLIError(problem) }
                        let custom = MealConfig.customMeals(configPath: ctx.paths.configPath)
                        if inv.arguments.has("--json") {
                            var doc = MealConfig.json(loaded.schedule).objectValue ?? [:]
                            if !custom.isEmpty { doc["custom"] = MealConfig.customJSON(custom) }
                            writeOut(TerminalText.escapingJSON(PrettyJSON.format(.object(doc))).trimmingCharacters(in: .newlines))
                        } else {
                            writeOut(MealConfig.describe(loaded.schedule, configured: loaded.configured)
                                     + (custom.isEmpty ? "" : "\n" + MealConfig.describeCustom(custom)))
                        }
                        return 0
                    })
    }
}
