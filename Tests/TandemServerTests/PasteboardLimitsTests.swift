import Testing
import TandemCore
@testable import TandemServer

/// The pasteboard's representation limit must be reachable through the HTTP body limit.
@Suite struct PasteboardLimitsTests {
    @Test func theRepresentationLimitFitsInABodyAsBase64JSON() {
        let body = 8 << 20
        let limits = PasteboardRegistry.limits(PasteboardLimits(), maxBodyBytes: body)
        #expect(limits.maxRepresentationBytes < body)
        // base64 is 4/3 as long; the rest of the JSON fits in what is left.
        #expect((limits.maxRepresentationBytes + 2) / 3 * 4 + 256 <= body)
        #expect(limits.maxItems == PasteboardLimits().maxItems)
        #expect(limits.maxTotalBytes == PasteboardLimits().maxTotalBytes)
    }

    @Test func smallerConfiguredLimitsAreKept() {
        let wanted = PasteboardLimits(maxRepresentationBytes: 64, maxItems: 3, maxRepresentationsPerItem: 2, maxTotalBytes: 100)
        #expect(PasteboardRegistry.limits(wanted, maxBodyBytes: 8 << 20) == wanted)
    }
}
