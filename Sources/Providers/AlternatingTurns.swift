// Turns for the wires whose roles must alternate (Anthropic's messages, Gemini's contents): blocks
// for the role of the turn before join that turn, and a turn with no blocks is left out.
import Base

struct AlternatingTurns {
    struct Turn {
        var role: String
        var blocks: [JSONValue]
        /// Blocks that never share a turn with other blocks (Gemini's function responses: Google
        /// refuses a content that mixes them with other parts); they still join each other.
        var separate: Bool
    }

    private(set) var turns: [Turn] = []

    mutating func append(_ role: String, _ blocks: [JSONValue], separate: Bool = false) {
        guard !blocks.isEmpty else { return }
        if let last = turns.last, last.role == role, last.separate == separate {
            turns[turns.count - 1].blocks += blocks // roles must alternate; merge neighbours
        } else {
            turns.append(Turn(role: role, blocks: blocks, separate: separate))
        }
    }

    /// Changes the blocks of turn `index` (cache markers, media nested into a result, a note).
    mutating func updateBlocks(at index: Int, _ change: (inout [JSONValue]) -> Void) {
        change(&turns[index].blocks)
    }

    /// The positions of the turns of `role`, oldest first.
    func indices(of role: String) -> [Int] { turns.indices.filter { turns[$0].role == role } }

    /// The turns as wire objects: `{"role": …, blocksKey: […]}` ("content" for Anthropic, "parts" for Gemini).
    func json(blocksKey: String) -> [JSONValue] {
        turns.map { .object(["role": .string($0.role), blocksKey: .array($0.blocks)]) }
    }
}
