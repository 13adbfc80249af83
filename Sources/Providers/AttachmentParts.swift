// User-message attachments as each wire's content parts. The base64 is a marker here; the
// stream driver splices the bytes into the serialized body (AttachmentSplicer).
import Agent
import Base

enum AttachmentParts {
    /// Gemini: `{"inlineData":{"data","mimeType"}}` for images and PDFs alike. A type Gemini does
    /// not take (GIF) is never sent: a line says it was left out (refused before sending anyway,
    /// `ModelCatalog.attachmentRefusal`; this keeps a request valid whatever reached it).
    static func gemini(_ a: AttachmentRef) -> JSONValue {
        guard geminiTakes(a.format) else {
            return ["text": .string("[attachment \(a.id): \(a.format.label) not sent: Gemini does not take \(a.format.label)s]")]
        }
        return ["inlineData": ["data": .string(AttachmentSplicer.marker(a)), "mimeType": .string(a.format.mediaType)]]
    }

    /// What Gemini takes inline: PNG, JPEG, WebP (and HEIC/HEIF, which ofj does not attach) and PDF.
    static func geminiTakes(_ format: AttachmentFormat) -> Bool { format != .gif }

    /// Gemini 3: an attachment inside a `functionResponse.parts`, named by its id (never the
    /// person's file name).
    static func geminiFunctionResponsePart(_ a: AttachmentRef) -> JSONValue {
        ["inlineData": ["data": .string(AttachmentSplicer.marker(a)), "mimeType": .string(a.format.mediaType),
                        "displayName": .string("\(a.id).\(a.format.rawValue)")]]
    }

    /// The file name sent in `file`/`input_file` parts: the attachment's id, not the person's
    /// file name (a provider's error message may quote it, and error lines reach diagnostics).
    static func wireName(_ a: AttachmentRef) -> JSONValue { .string("\(a.id.isEmpty ? "document" : a.id).pdf") }

    static func dataURL(_ a: AttachmentRef) -> JSONValue {
        .string("data:\(a.format.mediaType);base64,\(AttachmentSplicer.marker(a))")
    }

    /// Chat Completions: `image_url` with a data URL; PDFs as a `file` part with `file_data`.
    static func chatCompletions(_ a: AttachmentRef) -> JSONValue {
        if a.format.isImage { return ["type": "image_url", "image_url": ["url": dataURL(a)]] }
        return ["type": "file", "file": ["filename": wireName(a), "file_data": dataURL(a)]]
    }

    /// Responses: `input_image` with a data URL and a `detail`; PDFs as `input_file` with `file_data`.
    /// `detail` is required by the Responses spec (`InputImageContent`): "auto" unless chosen.
    static func responses(_ a: AttachmentRef, detail: String = "auto") -> JSONValue {
        if a.format.isImage { return ["type": "input_image", "image_url": dataURL(a), "detail": .string(detail)] }
        return ["type": "input_file", "filename": wireName(a), "file_data": dataURL(a)]
    }

    /// Anthropic: `image` or `document` blocks with a base64 source.
    static func anthropic(_ a: AttachmentRef) -> JSONValue {
        ["type": .string(a.format.isImage ? "image" : "document"),
         "source": ["type": "base64", "media_type": .string(a.format.mediaType), "data": .string(AttachmentSplicer.marker(a))]]
    }
}

extension ChatRequest {
    /// Every attachment the request carries, in order (what the body splices in).
    var attachments: [AttachmentRef] { messages.flatMap(\.attachments) }
}
