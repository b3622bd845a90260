import AetherBase
import CFFmpeg

/// PQ/HLG → SDR BT.709 RGB24 at a given size, through one libavfilter graph (scale, zscale to
/// linear light, hable tonemap, zscale back to BT.709): the conversion playback uses, shared with
/// the ``FrameExtractor``'s stills so a preview looks like the picture on screen. The graph is
/// rebuilt when the output size or the input's shape changes.
package final class ToneMapper {
    let transfer: AVColorTransferCharacteristic
    let timeBase: AVRational
    private var graph: (filter: FilterGraph, size: PixelSize, input: FilterGraph.FrameShape)?
    private let mapped: Frame

    /// Transfers that need tone-mapping: PQ (SMPTE ST 2084) and HLG (ARIB STD-B67).
    package static func needsMapping(_ transfer: AVColorTransferCharacteristic) -> Bool {
        transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67
    }

    /// The filter chain for `size`. HLG is scene-referred with a 1000-nit nominal peak; PQ is
    /// mapped from 100 nits of reference white.
    static func chain(size: PixelSize, transfer: AVColorTransferCharacteristic) -> String {
        let npl = transfer == AVCOL_TRC_ARIB_STD_B67 ? 1000 : 100
        return "scale=w=\(size.width):h=\(size.height):flags=bilinear,"
            + "zscale=t=linear:npl=\(npl),format=gbrpf32le,zscale=p=bt709,"
            + "tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=rgb24"
    }

    package init(transfer: AVColorTransferCharacteristic, timeBase: AVRational) throws(FFmpegError) {
        self.transfer = transfer
        self.timeBase = timeBase
        mapped = try Frame()
    }

    /// Drops the graph (after a seek; it is rebuilt for the next frame).
    package func reset() { graph = nil }

    /// Tone-maps `frame` into `destination` (`size.width * 3` bytes per row, `size.height` rows).
    /// False when the graph held the frame back (it never does for these filters).
    func render(_ frame: Frame, size: PixelSize, into destination: UnsafeMutableRawBufferPointer) throws(FFmpegError) -> Bool {
        let input = FilterGraph.FrameShape(frame)
        if graph == nil || graph?.size != size || graph?.input != input {
            graph = (try FilterGraph(video: Self.chain(size: size, transfer: transfer), like: frame, timeBase: timeBase), size, input)
        }
        guard let filter = graph?.filter else { return false }
        try filter.push(frame)
        guard try filter.pull(into: mapped) else { return false }
        defer { mapped.unref() }
        Self.copyPacked(mapped, size: size, into: destination)
        return true
    }

    /// Copies a packed RGB24 frame row by row (its rows may be padded) into tightly packed memory.
    package static func copyPacked(_ f: Frame, size: PixelSize, into dst: UnsafeMutableRawBufferPointer) {
        let src = f.pointer.pointee
        guard let data = src.data.0, let base = dst.baseAddress, src.width == size.width, src.height == size.height,
              dst.count >= size.width * size.height * 3 else { return }
        let rowBytes = size.width * 3
        for y in 0..<size.height {
            (base + y * rowBytes).copyMemory(from: data + y * Int(src.linesize.0), byteCount: rowBytes)
        }
    }
}
