import AetherEngine
public enum AetherTUI {}
