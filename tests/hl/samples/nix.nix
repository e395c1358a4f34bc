# Nix sample
{ pkgs ? import <nixpkgs> { }, lib ? pkgs.lib }:

let
  version = "0.1.0";
  deps = with pkgs; [ cmake pkg-config cmark-gfm pcre2 ];
in
pkgs.stdenv.mkDerivation rec {
  pname = "sheaf";
  inherit version;
  src = ./.;
  nativeBuildInputs = deps;
  doCheck = true;
  meta = {
    description = "A static site generator in ${pname}";
    license = lib.licenses.mit;
  };
  installPhase = ''
    mkdir -p $out/bin
    cp build/sheaf $out/bin/
  '';
}
