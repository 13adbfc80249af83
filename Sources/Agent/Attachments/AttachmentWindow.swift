// Which attachments a request carries: those of the current user message, and those the model
// asked to see again with read_attachment during this answer. Older ones become one line.
import Base

public enum AttachmentWindow {
    /// The name of the read tool that shows an earlier attachment again.
    public static let readToolName = "read_attachment"
    /// Tools whose successful result may name an `attachment_id` to show right after it:
    /// read_attachment, and fetch_url for a PDF it fetched (issue 20).
    public static let showingToolNames: Set<String> = [readToolName, "fetch_url"]

    /// `messages` (normalised) with attachments only where they are sent whole. `lookup` finds
    /// an attachment by id in the thread (for read_attachment results).
    public static func apply(_ messages: [Message], lookup: (String) -> AttachmentRef?) -> [Message] {
        guard let current = messages.lastIndex(where: { $0.role == .user }) else { return messages }
        var out: [Message] = []
        out.reserveCapacity(messages.count + 1)
        for (i, message) in messages.enumerated() {
            var m = message
            if m.role == .user && !m.attachments.isEmpty {
                if i == current {
                    // Bytes that are not here (on another machine, never saved) are never sent:
                    // their line says so instead.
                    m.parts.append(.text("\n\n" + m.attachments.map { $0.absence != nil ? $0.placeholder : $0.introduction }.joined(separator: "\n")))
                    m.attachments.removeAll { $0.absence != nil }
                } else {
                    m.parts.append(.text("\n\n" + m.attachments.map(\.placeholder).joined(separator: "\n")))
                    m.attachments = []
                }
            }
            out.append(m)
            // Results of read_attachment (or fetch_url's PDFs) in the current answer: the attachment follows as a user message.
            if i > current && m.role == .tool {
                var shown: [AttachmentRef] = []
                for r in m.toolResults where showingToolNames.contains(r.name) && !r.isError {
                    guard let id = (try? JSONValue.parse(r.content))?["attachment_id"]?.stringValue,
                          let ref = lookup(id), ref.absence == nil, !shown.contains(ref) else { continue }
                    shown.append(ref)
                }
                if !shown.isEmpty {
                    out.append(Message(role: .user, parts: [.text(shown.map(\.introduction).joined(separator: "\n"))], attachments: shown))
                }
            }
        }
        return out
    }
}

extension AttachmentRef {
    /// "a3: JPEG image \"label.jpg\", 2.1 MB" (a checkpoint's list of earlier files).
    public var placeholderName: String {
        "\(id): \(format.label) \"\(name)\", \(AttachmentRef.sizeText(byteCount))" + (absence.map { " — \($0.note)" } ?? "")
    }

    /// The line sent with an attachment that is shown: its id and name, so the model can cite
    /// it (`read_from_attachment`) and look at it again later.
    public var introduction: String {
        "[attachment \(id): \(format.label) \"\(name)\", \(AttachmentRef.sizeText(byteCount))]"
    }
}

/// `read_attachment`: shows an earlier attachment of this thread to the model again.
public struct ReadAttachmentTool: Tool {
    let store: ConversationStore
    /// Why the run's model cannot be shown this file (nil when it can): a file it cannot see would
    /// only make the provider refuse the whole request.
    let refusal: @Sendable (AttachmentRef, any ChatModel) -> String?
    public init(store: ConversationStore, refusal: @escaping @Sendable (AttachmentRef, any ChatModel) -> String? = { _, _ in nil }) {
        self.store = store
        self.refusal = refusal
    }
    public var name: String { AttachmentWindow.readToolName }
    public var description: String {
        "Shows again an image or PDF attached earlier (a line \"[attachment a12: … not shown again …]\"), right after this result."
    }
    public var parameters: JSONValue {
        ["type": "object", "properties": ["id": ["type": "string", "description": "Like \"a12\"."]],
         "required": ["id"], "additionalProperties": false]
    }
    public var effect: ToolEffect { .read }
    public func activity(arguments: JSONValue) -> String { "looking at an attachment again" }
    /// An attachment shown again is content from outside the person again.
    public func untrustedReads(arguments: JSONValue, output: ToolOutput) -> [UntrustedRead] {
        guard !output.isError, let id = (try? JSONValue.parse(output.content))?["attachment_id"]?.stringValue else { return [] }
        return [UntrustedRead(kind: .attachment, label: "attachment \(id)")]
    }
    public func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        let id = arguments["id"]?.stringValue ?? ""
        guard let ref = try store.attachment(id: id, threadID: context.threadID) else {
            return .error("No attachment \(id) in this conversation; use an id from an \"[attachment …]\" line.")
        }
        // No file name: an error's text is also the tool's summary.
        switch ref.absence {
        case .onAnotherMachine?:
            return .error("Attachment \(ref.id) (\(ref.format.label), \(AttachmentRef.sizeText(ref.byteCount))) is \(AttachmentRef.remoteNote): "
                + "only its name, type and size synced here, so it cannot be shown; ask the person to attach the file again if it is needed.")
        case .notSaved?, .beingSaved?:
            let state = ref.absence == .notSaved ? "was \(AttachmentAbsence.notSaved.note)" : "is \(AttachmentAbsence.beingSaved.note)"
            return .error("Attachment \(ref.id) (\(ref.format.label), \(AttachmentRef.sizeText(ref.byteCount))) \(state), "
                + "so it cannot be shown; ask the person to attach the file again if it is needed.")
        case nil:
            break
        }
        if let model = context.model, let why = refusal(ref, model) {
            return .error("Attachment \(ref.id) is not shown: \(why)")
        }
        let content: JSONValue = ["attachment_id": .string(ref.id), "type": .string(ref.format.mediaType), "bytes": .number(Double(ref.byteCount)),
                                  "note": "The attachment follows this result."]
        return ToolOutput(content: content.serialized, summary: "looked again at attachment \(ref.id)")
    }
}
