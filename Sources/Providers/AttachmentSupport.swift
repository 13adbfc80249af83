// Which models take images and PDFs, and how large, per provider (part of the model catalog).
import Agent

/// What a provider/model accepts as attachments, from the author's knowledge of the providers'
/// documentation (see docs/PROVIDERS.md, "Attachments"), not a live check.
public struct AttachmentSupport: Sendable, Hashable {
    public var images: Bool
    public var pdfs: Bool
    /// Largest single image, in base64 characters as sent (nil: no per-image limit besides the request's).
    public var maxImageBase64: Int?
    /// Largest single PDF, in bytes of the file.
    public var maxPDFBytes: Int?
    /// Largest total of base64 one request may carry inline.
    public var maxRequestBase64: Int
    /// Why images (or PDFs) are not taken, and what would work: one sentence.
    public var refusal: String

    public static let none = AttachmentSupport(images: false, pdfs: false, maxImageBase64: nil, maxPDFBytes: nil, maxRequestBase64: 0, refusal: "")
}

extension ModelCatalog {
    static let mb = 1_000_000
    static let mib = 1_048_576
    static let worksWith = "attach with a hosted vision model instead (e.g. --provider gemini, --provider anthropic or --provider openai)"

    /// Attachments `model` takes. `provider`/`family` as the ChatModel reports them.
    public static func attachmentSupport(provider: String, model: String, family: String) -> AttachmentSupport {
        switch provider {
        case "offline":
            var s = AttachmentSupport.none
            s.refusal = "the offline assistant cannot see images or PDFs; \(worksWith)"
            return s
        case "scripted", "recorded":
            return AttachmentSupport(images: true, pdfs: true, maxImageBase64: nil, maxPDFBytes: nil, maxRequestBase64: 64 * mb, refusal: "")
        default: break
        }
        let info = info(model: model, provider: provider)
        if localProviders.contains(provider) && !info.isKnown {
            var s = AttachmentSupport.none
            s.refusal = "ofj does not know \(model) on \(provider) to see images; \(worksWith)"
            return s
        }
        switch family {
        case "gemini":
            // Inline data: the whole request must stay under 20 MB.
            return AttachmentSupport(images: true, pdfs: true, maxImageBase64: nil, maxPDFBytes: nil, maxRequestBase64: 20 * mb - 200_000,
                                     refusal: "")
        case "anthropic":
            // 5 MB per image (measured on the base64), 32 MB per request, PDFs as documents.
            return AttachmentSupport(images: true, pdfs: true, maxImageBase64: 5 * mib, maxPDFBytes: 32 * mb,
                                     maxRequestBase64: 32 * mb - 200_000, refusal: "")
        case "openai-responses", "azure-responses":
            return AttachmentSupport(images: true, pdfs: true, maxImageBase64: nil, maxPDFBytes: 32 * mb, maxRequestBase64: 50 * mb,
                                     refusal: "")
        default:
            // Chat Completions: api.openai.com, Azure and OpenRouter take `file` parts; other servers images only.
            let pdfs = ["openai", "azure", "openrouter"].contains(provider)
            return AttachmentSupport(images: true, pdfs: pdfs, maxImageBase64: nil, maxPDFBytes: pdfs ? 32 * mb : nil,
                                     maxRequestBase64: 50 * mb,
                                     refusal: pdfs ? "" : "\(provider)'s Chat Completions server is not known to take PDF files; attach an image of the page, or use --provider gemini, anthropic or openai for PDFs")
        }
    }

    /// The reason `attachments` cannot go to `model` (with what would work), or nil when they can.
    public static func attachmentRefusal(_ attachments: [AttachmentRef], model: any ChatModel) -> String? {
        guard !attachments.isEmpty else { return nil }
        let s = attachmentSupport(provider: model.provider, model: model.model, family: model.continuationFamily)
        if !s.images && !s.pdfs { return "Not sent: " + s.refusal + "." }
        if attachments.contains(where: { !$0.format.isImage }) && !s.pdfs { return "Not sent: " + s.refusal + "." }
        for a in attachments {
            if a.format.isImage, let max = s.maxImageBase64, a.base64Count > max {
                return "Not sent: a \(AttachmentRef.sizeText(a.byteCount)) image is over \(model.provider)'s limit of \(AttachmentRef.sizeText(max * 3 / 4)) per image; resize it (e.g. to 2000 pixels on the long side) or use --provider gemini."
            }
            if !a.format.isImage, let max = s.maxPDFBytes, a.byteCount > max {
                return "Not sent: a \(AttachmentRef.sizeText(a.byteCount)) PDF is over \(model.provider)'s limit of \(AttachmentRef.sizeText(max)); attach only the pages needed."
            }
        }
        let total = attachments.reduce(0) { $0 + $1.base64Count }
        if total > s.maxRequestBase64 {
            return "Not sent: these attachments (\(AttachmentRef.sizeText(attachments.reduce(0) { $0 + $1.byteCount }))) are over the \(AttachmentRef.sizeText(s.maxRequestBase64 * 3 / 4)) \(model.provider) takes in one message; attach fewer or smaller files."
        }
        return nil
    }
}
