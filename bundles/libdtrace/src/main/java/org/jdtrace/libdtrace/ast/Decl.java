package org.jdtrace.libdtrace.ast;

import java.util.List;

/**
 * A top-level declaration. {@code int x;}, {@code self int x;}, {@code this string s;},
 * {@code int a[int, string];} (associative: {@code keys} non-null), {@code int a[5];} (array type
 * in {@code type.dims}), {@code typedef T name;}, {@code inline int N = 5;} ({@code init}), and
 * tag-only ones such as {@code struct foo { ... };} ({@code name} null). {@code body} holds the
 * member declarations of a struct/union or the enumerators (as Decls with init) of an enum.
 */
public record Decl(int line, Storage storage, TypeName type, String name, List<TypeName> keys,
                   Expr init, List<Decl> body, List<String> params) implements TopLevel {

    public enum Storage { NONE, SELF, THIS, TYPEDEF, INLINE, EXTERN, STATIC, MEMBER, ENUMERATOR }

    public Decl {
        keys = keys == null ? null : List.copyOf(keys);
        body = body == null ? List.of() : List.copyOf(body);
        params = params == null ? null : List.copyOf(params);
    }

    /** Without parameter names ({@code params}: an inline array's, {@code inline int f[int x] = x + 1}). */
    public Decl(int line, Storage storage, TypeName type, String name, List<TypeName> keys, Expr init, List<Decl> body) {
        this(line, storage, type, name, keys, init, body, null);
    }
}
