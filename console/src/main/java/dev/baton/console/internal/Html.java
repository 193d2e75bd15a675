package dev.baton.console.internal;

import org.jspecify.annotations.Nullable;

/** HTML escaping: every text that reaches a page goes through {@link #text} or {@link #clip}. */
public final class Html {
    private Html() {}

    /** Escapes {@code s} for element content and quoted attribute values; null as the empty string. */
    public static String text(@Nullable Object s) {
        if (s == null) {
            return "";
        }
        String in = String.valueOf(s);
        StringBuilder out = new StringBuilder(in.length() + 16);
        for (int i = 0; i < in.length(); i++) {
            char c = in.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> {
                    if (c < 0x20 && c != '\n' && c != '\t') {
                        out.append('\uFFFD'); // control characters: not text an operator needs to see
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** {@link #text} of the first {@code max} characters of {@code s}, with an ellipsis when cut. */
    public static String clip(@Nullable Object s, int max) {
        if (s == null) {
            return "";
        }
        String in = String.valueOf(s);
        if (in.length() <= max) {
            return text(in);
        }
        int end = max;
        if (Character.isHighSurrogate(in.charAt(end - 1))) {
            end--;
        }
        return text(in.substring(0, end)) + "\u2026 (" + in.length() + " characters)";
    }
}
