package org.jdtrace.libdtrace.ast;

import java.util.List;

/**
 * {@code translator OUT < IN name > { member = expr; ... };}: how to make a value of struct or
 * union type {@code output} from a value of type {@code input}, named {@code input name} in the
 * member expressions (dt_xlator_t). Members not listed are left zero by a whole translation.
 * {@code endLine} is the line of its closing brace, where dtrace reports the declaration's errors.
 */
public record Translator(int line, TypeName output, TypeName input, String inputName, List<Assignment> members,
                         int endLine) implements TopLevel {

    /** {@code member = expr;} */
    public record Assignment(int line, String member, Expr value) {}

    public Translator {
        members = List.copyOf(members);
    }
}
