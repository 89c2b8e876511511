"""Small pieces shared by the game screens: a line of styled text, cut or padded to a width."""

Line = list[tuple[str, str]]


def fit(parts: Line, width: int) -> Line:
    """Cut or pad a line to exactly `width` characters."""
    out: Line = []
    used = 0
    for style, text in parts:
        if used >= width:
            break
        cut = text[: width - used]
        out.append((style, cut))
        used += len(cut)
    if used < width:
        out.append(("", " " * (width - used)))
    return out
