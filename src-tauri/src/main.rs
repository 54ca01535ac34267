fn main() {
    dossier_lib::run()
}
