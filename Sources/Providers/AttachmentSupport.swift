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
    /// The image formats taken (when `images`), from the provider's documented list.
    public var imageFormats: Set<AttachmentFormat> = [.jpeg, .png, .webp, .gif]
    /// Whether a GIF with more than one frame is taken (OpenAI: "non-animated GIF" only).
    public var animatedGIF = true

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
            // Inline data: the whole request must stay under 20 MB. Images: PNG, JPEG, WebP, HEIC,
            // HEIF only (a GIF is refused with 400).
            var s = AttachmentSupport(images: true, pdfs: true, maxImageBase64: nil, maxPDFBytes: nil, maxRequestBase64: 20 * mb - 200_000,
                                      refusal: "")
            s.imageFormats = [.jpeg, .png, .webp]
            return s
        case "anthropic":
            // 5 MB per image (measured on the base64), 32 MB per request, PDFs as documents;
            // JPEG, PNG, GIF and WebP (the SDK's media_type list).
            return AttachmentSupport(images: true, pdfs: true, maxImageBase64: 5 * mib, maxPDFBytes: 32 * mb,
                                     maxRequestBase64: 32 * mb - 200_000, refusal: "")
        case "openai-responses", "azure-responses":
            // PNG, JPEG, WebP and non-animated GIF.
            var s = AttachmentSupport(images: true, pdfs: true, maxImageBase64: nil, maxPDFBytes: 32 * mb, maxRequestBase64: 50 * mb,
                                      refusal: "")
            s.animatedGIF = false
            return s
        default:
            // Chat Completions: api.openai.com, Azure and OpenRouter take `file` parts; other servers images only.
            let pdfs = ["openai", "azure", "openrouter"].contains(provider)
            var s = AttachmentSupport(images: true, pdfs: pdfs, maxImageBase64: nil, maxPDFBytes: pdfs ? 32 * mb : nil,
                                      maxRequestBase64: 50 * mb,
                                      refusal: pdfs ? "" : "\(provider)'s Chat Completions server is not known to take PDF files; attach an image of the page, or use --provider gemini, anthropic or openai for PDFs")
            // OpenAI's image inputs are PNG, JPEG, WebP and non-animated GIF (Azure serves the same models).
            s.animatedGIF = !["openai", "azure"].contains(provider)
            return s
        }
    }

    /// The provider's name as a person knows it, for refusal lines.
    static func displayName(_ provider: String, family: String) -> String {
        switch family {
        case "gemini": return "Gemini"
        case "openai-responses": return "OpenAI"
        case "azure-responses": return "Azure OpenAI"
        default: return provider == "openai" ? "OpenAI" : provider == "azure" ? "Azure OpenAI" : provider
        }
    }

    /// The reason `attachments` cannot go to `model` (with what would work), or nil when they can.
    public static func attachmentRefusal(_ attachments: [AttachmentRef], model: any ChatModel) -> String? {
        guard !attachments.isEmpty else { return nil }
        let s = attachmentSupport(provider: model.provider, model: model.model, family: model.continuationFamily)
        if !s.images && !s.pdfs { return "Not sent: " + s.refusal + "." }
        if attachments.contains(where: { !$0.format.isImage }) && !s.pdfs { return "Not sent: " + s.refusal + "." }
        let name = displayName(model.provider, family: model.continuationFamily)
        for a in attachments where a.format.isImage {
            if !s.imageFormats.contains(a.format) {
                let taken = AttachmentFormat.allCases.filter { s.imageFormats.contains($0) }.map { $0.label.replacingOccurrences(of: " image", with: "") }
                return "Not sent: \(name) does not take \(a.format.label)s (only \(taken.joined(separator: ", "))\(a.format == .gif && model.continuationFamily == "gemini" ? ", HEIC and HEIF" : "")); "
                    + "convert it to PNG or JPEG first, or use --provider anthropic or openai."
            }
            if a.format == .gif && !s.animatedGIF && a.absence == nil && GIFFrames.isAnimated(a.source) {
                return "Not sent: \(name) does not take animated GIF images; attach a still image (PNG or JPEG) of the frame that matters, or use --provider anthropic."
            }
        }
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

/// Whether a GIF has more than one frame, by walking its blocks (GIF89a: header, screen
/// descriptor and color table, then extension and image blocks made of length-prefixed
/// sub-blocks). Unreadable or malformed bytes count as one frame: the provider then says.
enum GIFFrames {
    static func isAnimated(_ source: any AttachmentSource) -> Bool {
        var bytes: [UInt8] = []
        do {
            try source.read { bytes.append(contentsOf: $0) }
        } catch {
            return false
        }
        return isAnimated(bytes)
    }

    static func isAnimated(_ b: [UInt8]) -> Bool {
        guard b.count >= 13 else { return false }
        var i = 13
        if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 7) + 1) } // global color table
        var frames = 0
        func skipSubBlocks() {
            while i < b.count {
                let n = Int(b[i])
                i += 1
                if n == 0 { return }
                i += n
            }
        }
        while i < b.count {
            switch b[i] {
            case 0x2C: // image descriptor
                frames += 1
                if frames > 1 { return true }
                guard i + 10 < b.count else { return false }
                let packed = b[i + 9]
                i += 10
                if packed & 0x80 != 0 { i += 3 << (Int(packed & 7) + 1) } // local color table
                i += 1 // LZW minimum code size
                skipSubBlocks()
            case 0x21: // extension: label, then sub-blocks
                i += 2
                skipSubBlocks()
            default: // 0x3B trailer, or bytes that are not a GIF block
                return false
            }
        }
        return false
    }
}
