package dev.baton;

/**
 * Root of every exception Baton throws. Unchecked: expected outcomes (a duplicate, a rejected transition, a lost
 * lease) are returned as values, so an exception always means a failure or a programming error.
 */
public class BatonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception with a message. */
    public BatonException(String message) {
        super(message);
    }

    /** Creates an exception with a message and the cause it wraps. */
    public BatonException(String message, Throwable cause) {
        super(message, cause);
    }
}
