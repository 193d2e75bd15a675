package dev.baton;

import org.jspecify.annotations.Nullable;

/**
 * A table or column name that is not a plain SQL identifier ({@code ^[A-Za-z_][A-Za-z0-9_]*$} within the dialect's
 * length limit). Baton never puts such a name into SQL text, so there is no injection path through configuration.
 */
public final class InvalidIdentifierException extends ConfigurationException {
    private static final long serialVersionUID = 1L;
    private final @Nullable String identifier;

    /** Creates an exception for the rejected identifier. */
    public InvalidIdentifierException(@Nullable String identifier, String reason) {
        super("invalid SQL identifier " + quoteForMessage(identifier) + ": " + reason);
        this.identifier = identifier;
    }

    /** The identifier as it was given (may be null or empty). */
    public @Nullable String identifier() {
        return identifier;
    }

    private static String quoteForMessage(@Nullable String identifier) {
        if (identifier == null) {
            return "null";
        }
        String shown = identifier.length() > 80 ? identifier.substring(0, 80) + "…" : identifier;
        return "'" + shown + "'";
    }
}
