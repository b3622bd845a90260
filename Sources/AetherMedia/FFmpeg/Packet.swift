import CFFmpeg

/// Owns an `AVPacket`; freed exactly once.
public final class Packet: @unchecked Sendable {  // handed from thread to thread, one owner at a time
    package let pointer: UnsafeMutablePointer<AVPacket>

    public init() throws(FFmpegError) {
        guard let p = av_packet_alloc() else { throw .outOfMemory("av_packet_alloc") }
        pointer = p
    }

    /// A packet holding a copy of `bytes` (with FFmpeg's zeroed input padding).
    /// The corresponding C function is `av_new_packet`.
    public convenience init(bytes: [UInt8]) throws(FFmpegError) {
        try self.init()
        try check(av_new_packet(pointer, Int32(clamping: bytes.count)), "av_new_packet")
        if !bytes.isEmpty { pointer.pointee.data.update(from: bytes, count: bytes.count) }
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&doomed)
    }

    public var streamIndex: Int { Int(pointer.pointee.stream_index) }
    public var size: Int { Int(pointer.pointee.size) }
    public var pts: Int64? { pointer.pointee.pts == aether_AV_NOPTS_VALUE() ? nil : pointer.pointee.pts }
    public var dts: Int64? { pointer.pointee.dts == aether_AV_NOPTS_VALUE() ? nil : pointer.pointee.dts }
    public var duration: Int64 { pointer.pointee.duration }

    /// The encryption scheme (`cenc`, `cbcs` …) when the demuxer marked this packet encrypted
    /// (CENC side data); nil for clear packets.
    /// The corresponding C function is `av_encryption_info_get_side_data`.
    public var encryptionScheme: String? {
        var size: Int = 0
        guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_ENCRYPTION_INFO, &size), size > 0 else { return nil }
        guard let info = av_encryption_info_get_side_data(data, size) else { return "cenc" }
        defer { av_encryption_info_free(info) }
        let s = info.pointee.scheme
        let chars = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: s >> $0) }
        let name = String(decoding: chars.filter { (0x21...0x7E).contains($0) }, as: UTF8.self)
        return name.isEmpty ? "cenc" : name
    }
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// Set on the first packet from another stream than the one before it (a DASH period of
    /// another codec): the decoder opens again with these parameters before decoding it.
    package var newParameters: StreamParameters?

    /// Moves the timestamps by `seconds`, in the packet's time base `timeBase` (no timestamp
    /// stays none).
    package func shift(seconds: Double, timeBase: AVRational) {
        guard seconds != 0, timeBase.num > 0 else { return }
        let ticks = Int64((seconds * Double(timeBase.den) / Double(timeBase.num)).rounded())
        let none = aether_AV_NOPTS_VALUE()
        if pointer.pointee.pts != none { pointer.pointee.pts += ticks }
        if pointer.pointee.dts != none { pointer.pointee.dts += ticks }
    }

    /// Drops the payload, keeping the allocation. The corresponding C function is `av_packet_unref`.
    public func unref() { av_packet_unref(pointer) }

    /// Moves this packet's payload into a fresh packet (this one becomes empty).
    public func take() throws(FFmpegError) -> Packet {
        let moved = try Packet()
        av_packet_move_ref(moved.pointer, pointer)
        moved.newParameters = newParameters
        newParameters = nil
        return moved
    }
}
