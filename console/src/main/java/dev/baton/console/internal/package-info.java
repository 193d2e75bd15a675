/** The console's machinery; not API. */
@NullMarked
package dev.baton.console.internal;

import org.jspecify.annotations.NullMarked;
