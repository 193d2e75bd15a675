package dev.baton;

/**
 * A key-like argument that Baton refuses before any SQL runs: an idempotency key, scope or request fingerprint, an
 * inbox source or message id that is empty, blank, longer than allowed, starts or ends with whitespace, holds a control
 * character or a lone UTF-16 surrogate. Such values would otherwise be compared loosely (MySQL and SQL Server ignore
 * trailing spaces), truncated or refused by the driver.
 */
public final class IllegalKeyException extends BatonException {
    private static final long serialVersionUID = 1L;
    private final String argument;

    /**
     * Creates an exception naming the argument, why it was refused, and (abbreviated) the value.
     *
     * @param argument what the value is, e.g. {@code idempotency key}
     * @param value the refused value
     * @param reason why it was refused
     */
    public IllegalKeyException(String argument, String value, String reason) {
        super(argument + " " + show(value) + " " + reason);
        this.argument = argument;
    }

    /** Which argument was refused, e.g. {@code idempotency key} or {@code message id}. */
    public String argument() {
        return argument;
    }

    private static String show(String value) {
        String shown = value.length() > 40 ? value.substring(0, 40) + "…" : value;
        StringBuilder out = new StringBuilder("'");
        shown.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp) || (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
                out.append(String.format("\\u%04x", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.append("' (").append(value.length()).append(" chars)").toString();
    }
}
