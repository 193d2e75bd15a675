package dev.baton.console.internal;

import org.jspecify.annotations.Nullable;

/** Indents a JSON text for the page, or says it is none: a small strict parser, bounded in length and depth. */
final class Json {
    private static final int MAX_LENGTH = 64 * 1024;
    private static final int MAX_DEPTH = 32;

    private final String in;
    private final StringBuilder out;
    private int pos;

    private Json(String in) {
        this.in = in;
        this.out = new StringBuilder(in.length() + 64);
    }

    /** {@code text} indented by two spaces per level when it is a JSON object or array, else null. */
    static @Nullable String pretty(String text) {
        String t = text.strip();
        if (t.length() < 2 || t.length() > MAX_LENGTH || (t.charAt(0) != '{' && t.charAt(0) != '[')) {
            return null;
        }
        Json j = new Json(t);
        try {
            j.value(0);
            j.space();
            return j.pos == t.length() ? j.out.toString() : null;
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            return null;
        }
    }

    private void value(int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("too deep");
        }
        space();
        char c = in.charAt(pos);
        switch (c) {
            case '{' -> container(depth, '}', true);
            case '[' -> container(depth, ']', false);
            case '"' -> string();
            default -> literal();
        }
    }

    private void container(int depth, char close, boolean object) {
        out.append(in.charAt(pos++));
        space();
        if (in.charAt(pos) == close) {
            out.append(close);
            pos++;
            return;
        }
        while (true) {
            newline(depth + 1);
            if (object) {
                space();
                if (in.charAt(pos) != '"') {
                    throw new IllegalArgumentException("a key");
                }
                string();
                space();
                expect(':');
                out.append(": ");
            }
            value(depth + 1);
            space();
            char c = in.charAt(pos++);
            if (c == ',') {
                out.append(',');
            } else if (c == close) {
                newline(depth);
                out.append(close);
                return;
            } else {
                throw new IllegalArgumentException("a comma");
            }
        }
    }

    private void string() {
        int start = pos++;
        while (true) {
            char c = in.charAt(pos++);
            if (c == '"') {
                break;
            }
            if (c == '\\') {
                pos++;
            } else if (c < 0x20) {
                throw new IllegalArgumentException("a control character in a string");
            }
        }
        out.append(in, start, pos);
    }

    private void literal() {
        int start = pos;
        while (pos < in.length() && "+-.eE0123456789truefalsn".indexOf(in.charAt(pos)) >= 0) {
            pos++;
        }
        String lit = in.substring(start, pos);
        if (!(lit.equals("true")
                || lit.equals("false")
                || lit.equals("null")
                || lit.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))) {
            throw new IllegalArgumentException("a value");
        }
        out.append(lit);
    }

    private void expect(char c) {
        if (in.charAt(pos++) != c) {
            throw new IllegalArgumentException("'" + c + "'");
        }
    }

    private void space() {
        while (pos < in.length() && " \t\r\n".indexOf(in.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private void newline(int depth) {
        out.append('\n');
        for (int i = 0; i < depth; i++) {
            out.append("  ");
        }
    }
}
