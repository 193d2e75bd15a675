package dev.baton;

/** Configuration that Baton refuses before it runs any SQL: a bad size, a bad duration, an inconsistent machine. */
public class ConfigurationException extends BatonException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception whose message names the offending setting and value. */
    public ConfigurationException(String message) {
        super(message);
    }

    /** Creates an exception that a database failure revealed, keeping that failure as the cause. */
    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
