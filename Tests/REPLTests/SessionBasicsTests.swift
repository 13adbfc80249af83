// Slash commands parsed and suggested, continuation lines, the stream writer, keys hidden from errors.
import Testing
@testable import REPL

@Suite struct SlashCommandTests {
    @Test func parsesNameAndArgument() {
        #expect(SlashCommands.parse("/open  abc ")! == ("open", "abc"))
        #expect(SlashCommands.parse("/HELP")! == ("help", ""))
        #expect(SlashCommands.parse("hello") == nil)
    }

    @Test func suggestsClosestCommand() {
        #expect(SlashCommands.suggestion(for: "hlep") == "help")
        #expect(SlashCommands.suggestion(for: "thread") == "threads")
        #expect(SlashCommands.suggestion(for: "contxt") == "context")
        #expect(SlashCommands.suggestion(for: "zzzzzzzz") == nil)
    }

    @Test func completesPrefixes() {
        #expect(SlashCommands.completions(prefix: "co") == ["continue", "context", "compact"])
        #expect(SlashCommands.completions(prefix: "x").isEmpty)
    }

    @Test func everyCommandHasHelp() {
        for c in SlashCommands.all { #expect(!c.help.isEmpty) }
        #expect(SlashCommands.helpText.contains("/threads [query]"))
    }

    @Test func continuationJoinsBackslashLines() {
        var lines = ["second \\", "third"].makeIterator()
        #expect(joinContinuation(first: "first \\") { lines.next() } == "first \nsecond \nthird")
        #expect(joinContinuation(first: "no continuation") { nil } == "no continuation")
        #expect(joinContinuation(first: "ends in \\") { nil } == "ends in \n")
    }
}

@Suite struct StreamWriterTests {
    @Test func showsEveryFragmentAtOnceAndWrapsWholeWords() {
        let out = CapturedOutput()
        let w = StreamWriter(output: out, width: 12)
        w.write("Here are thr")
        #expect(out.text == "Here are thr") // nothing held back
        w.write("ee dinner ideas")
        #expect(out.text == "Here are three\ndinner ideas") // "dinner" did not fit after "three"
        w.finishLine()
        #expect(out.text.hasSuffix("ideas\n"))
    }

    @Test func withoutWidthWritesVerbatim() {
        let out = CapturedOutput()
        let w = StreamWriter(output: out, width: 0)
        w.write("a very long line that is not wrapped at all")
        w.finishLine()
        #expect(out.text == "a very long line that is not wrapped at all\n")
    }
}

@Suite struct HidingSecretsTests {
    @Test func keysInErrorLinesAreHidden() {
        #expect(hidingSecrets("bad request from https://x.example/v1?key=sk-proj-ABCDEFGHIJKL for you") == "bad request from https://x.example/v1?key=[key] for you")
        #expect(hidingSecrets("token AIzaSyA1234567890abcdefghij rejected") == "token [key] rejected")
        #expect(hidingSecrets("wait 10 min (quota)") == "wait 10 min (quota)")
    }
}
