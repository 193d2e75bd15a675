package dev.baton.console.internal;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * HTML escaping: every text that reaches a page goes through {@link #text} or {@link #clip} (element content) or
 * {@link #attr} (attribute values).
 *
 * <p>Characters a reader cannot see are never passed to the page to obey: control characters and format characters
 * such as the bidirectional overrides (U+202E shows a stored {@code deifirev} as "verified"), zero-width characters
 * and line separators are shown marked, as their code (a backslash, {@code u} and four hex digits), in element content,
 * and written as character references
 * in attribute values (where they render as nothing and must come back byte for byte in a form).
 */
public final class Html {
    private Html() {}

    /** Escapes {@code s} for element content, invisible characters shown marked; null as the empty string. */
    public static String text(@Nullable Object s) {
        if (s == null) {
            return "";
        }
        String in = String.valueOf(s);
        StringBuilder out = new StringBuilder(in.length() + 16);
        for (int i = 0; i < in.length(); ) {
            int c = in.codePointAt(i);
            i += Character.charCount(c);
            if (c == '\r' && i < in.length() && in.charAt(i) == '\n') {
                continue; // a CRLF line break is a line break
            }
            if (!escape(c, out)) {
                if (invisible(c)) {
                    out.append("<span class=\"cc\" title=\"an invisible character, shown as its code\">")
                            .append(code(c))
                            .append("</span>");
                } else {
                    out.appendCodePoint(c);
                }
            }
        }
        return out.toString();
    }

    /** Escapes {@code s} for a quoted attribute value; invisible characters as character references. */
    public static String attr(@Nullable Object s) {
        if (s == null) {
            return "";
        }
        String in = String.valueOf(s);
        StringBuilder out = new StringBuilder(in.length() + 16);
        for (int i = 0; i < in.length(); ) {
            int c = in.codePointAt(i);
            i += Character.charCount(c);
            if (!escape(c, out)) {
                if (invisible(c) || c == '\n' || c == '\t') {
                    out.append("&#x").append(Integer.toHexString(c)).append(';');
                } else {
                    out.appendCodePoint(c);
                }
            }
        }
        return out.toString();
    }

    /** {@code s} with its invisible characters written as their codes (for a page title), not escaped. */
    public static String plain(@Nullable Object s) {
        if (s == null) {
            return "";
        }
        String in = String.valueOf(s);
        StringBuilder out = new StringBuilder(in.length());
        for (int i = 0; i < in.length(); ) {
            int c = in.codePointAt(i);
            i += Character.charCount(c);
            if (invisible(c) || c == '\n' || c == '\t') {
                out.append(code(c));
            } else {
                out.appendCodePoint(c);
            }
        }
        return out.toString();
    }

    private static boolean escape(int c, StringBuilder out) {
        switch (c) {
            case '&' -> out.append("&amp;");
            case '<' -> out.append("&lt;");
            case '>' -> out.append("&gt;");
            case '"' -> out.append("&quot;");
            case '\'' -> out.append("&#39;");
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * True for a character that shows nothing or changes how others show: controls (but line feed and tab), format
     * characters (bidi embeddings, overrides and isolates, zero-width ones, the BOM, tags), line and paragraph
     * separators, lone surrogates, and code points no version of Unicode assigned.
     */
    static boolean invisible(int c) {
        if (c == '\n' || c == '\t') {
            return false;
        }
        int type = Character.getType(c);
        return type == Character.CONTROL
                || type == Character.FORMAT
                || type == Character.SURROGATE
                || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.UNASSIGNED
                || type == Character.PRIVATE_USE;
    }

    private static String code(int c) {
        return c <= 0xFFFF ? String.format(Locale.ROOT, "\\u%04X", c) : String.format(Locale.ROOT, "\\U%06X", c);
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
