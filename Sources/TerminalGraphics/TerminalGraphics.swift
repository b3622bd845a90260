public enum TerminalGraphics {}
