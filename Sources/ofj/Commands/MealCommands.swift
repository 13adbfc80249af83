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
                        if inv.arguments.has("--json") {
                            writeOut(TerminalText.escapingJSON(PrettyJSON.format(MealConfig.json(loaded.schedule))).trimmingCharacters(in: .newlines))
                        } else {
                            writeOut(MealConfig.describe(loaded.schedule, configured: loaded.configured))
                        }
                        return 0
                    })
    }
}
